/** list_ecosystems and ecosystem_entities: the organisation's curated ecosystems, and the companies each one's filter matches. */
import { z } from 'zod';
import type { RestHandler } from '../../rest/handler.ts';
import { DEFAULT_TOOL_LIMIT, limitInput, listOutput, nextOffsetCursor, offsetCursorInput } from '../inputs.ts';
import { toolError, toolResult } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';
import { listInputs, listPage } from './search.ts';

interface EcosystemPage {
  data: { id: number }[];
  page: { offset: number; total: number };
}

export const listEcosystems: Tool = defineTool({
  name: 'list_ecosystems',
  title: 'List ecosystems',
  description:
    'Lists the ecosystems your organisation curates (e.g. "Berlin climate tech"): each has an id, a slug, a name and the filter ' +
    'that defines which companies belong to it. Use ecosystem_entities with an id or slug to list its companies.',
  input: { limit: limitInput, cursor: offsetCursorInput },
  output: listOutput,
  run: async ({ limit, cursor }, get) => {
    const answer = await get('/api/ecosystems', { limit: limit ?? DEFAULT_TOOL_LIMIT, offset: cursor, include_total: true });
    if (answer.status !== 200) return toolError(answer);
    const { data, page } = answer.body as EcosystemPage;
    return toolResult({ data, next_cursor: nextOffsetCursor(page.offset, data.length, page.total) });
  },
});

export function ecosystemEntities(handle: RestHandler): Tool {
  return defineTool({
    name: 'ecosystem_entities',
    title: 'List the companies of an ecosystem',
    description:
      'Lists the companies (entities) an ecosystem\'s filter matches; an extra filter narrows them (ANDed), with the same ' +
      'fields, sort and paging as search_entities.',
    input: {
      ecosystem: z.string().min(1).max(200).describe('The ecosystem\'s id or slug, from list_ecosystems'),
      ...listInputs(handle, 'entities', '/api/ecosystems/{ecosystem}/entities'),
    },
    output: listOutput,
    run: ({ ecosystem, ...args }, get) => listPage(get, `/api/ecosystems/${encodeURIComponent(ecosystem)}/entities`, args),
  });
}
