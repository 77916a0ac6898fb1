/** similar_companies: GET /api/entities/{id}/similar, companies like one, each with the reasons for its score. */
import { z } from 'zod';
import { SIMILAR_REASON_KINDS } from '../../compile/similar-schema.ts';
import { filterInput } from '../inputs.ts';
import { toolError, toolResult } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

const MAX_ID = 2_147_483_647;
// The route's own bounds (src/compile/similar-schema.ts); the route checks them again.
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;

const reason = z.object({
  kind: z.enum(SIMILAR_REASON_KINDS),
  detail: z.string(),
  weight: z.number(),
});

export const similarCompanies: Tool = defineTool({
  name: 'similar_companies',
  title: 'Find similar companies',
  description:
    'Companies most like a given entity, best first, each with a score and the reasons that make it up: shared tags ' +
    '(a rare tag weighs more than a common one), shared investors (when the token may read investors), the same city or ' +
    'country, and launch years close together. A filter narrows the candidates (e.g. `hq_country:Germany`). ' +
    'Entity ids come from search_entities.',
  input: () => ({
    id: z.number().int().min(1).max(MAX_ID).describe("The entity's id"),
    filter: filterInput('entities'),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`How many companies, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`),
  }),
  output: {
    data: z.array(z.object({ id: z.number().int(), name: z.string(), score: z.number(), reasons: z.array(reason) })),
  },
  run: async ({ id, filter, limit }, get) => {
    const answer = await get(`/api/entities/${id}/similar`, { filter, limit });
    if (answer.status !== 200) return toolError(answer);
    return toolResult({ data: (answer.body as { data: unknown[] }).data });
  },
});
