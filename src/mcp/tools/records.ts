/** get_record: one record of any of the six data resources, by id, as GET /api/{resource}/{id} answers it. */
import { z } from 'zod';
import { resourceInput } from '../inputs.ts';
import { toolError, toolResult } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

const MAX_ID = 2_147_483_647;

export const getRecord: Tool = defineTool({
  name: 'get_record',
  title: 'Get a record by id',
  description:
    'Reads one record by its id: a company (entities), founder, investor, funding round (transactions), valuation or news article, ' +
    'with its related records (an entity\'s founders, tags; a round\'s investors). Ids come from the search tools.',
  input: {
    resource: resourceInput.describe('Which kind of record'),
    id: z.number().int().min(1).max(MAX_ID).describe('The record\'s id'),
    fields: z
      .array(z.string())
      .optional()
      .describe('Only these fields (id is always kept); the names are those of the record, as the search tools\' `fields` list them'),
  },
  output: { record: z.looseObject({ id: z.number().int() }) },
  run: async ({ resource, id, fields }, get) => {
    const answer = await get(`/api/${resource}/${id}`, { fields: fields?.join(',') });
    if (answer.status !== 200) return toolError(answer);
    return toolResult({ record: (answer.body as { data: { id: number } }).data });
  },
});
