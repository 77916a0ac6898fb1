/**
 * search: the one search box (GET /api/search) across companies, investors and founders, by name or
 * website. Not to be confused with the search_<resource> tools, which list one resource by filter.
 */
import { z } from 'zod';
import { SEARCH_LIMIT, SEARCH_Q_MAX } from '../../search/request.ts';
import { SEARCH_KINDS } from '../../search/statement.ts';
import { toolError, toolResult } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

export const search: Tool = defineTool({
  name: 'search',
  title: 'Find companies, investors and founders by name or website',
  description:
    'Finds records by name, as a search box does: the beginning of a name, a misspelt name (stipe finds Stripe), ' +
    'any case, accents and punctuation, and a legal form such as Inc or GmbH are forgiven; a domain, URL or e-mail address finds the company with that website. ' +
    'Best first, each with its type (entity, investor, founder), id (for get_record), name, the text that matched and a score from 0 to 1. ' +
    'Use it to turn a name into an id; use search_entities and the other search_* tools to list records by a filter.',
  input: {
    q: z.string().min(1).max(SEARCH_Q_MAX).describe('A name or its beginning, or a domain, URL or e-mail address'),
    types: z.array(z.enum(SEARCH_KINDS)).min(1).optional().describe('Only these kinds; default every kind the token may read'),
    limit: z.number().int().min(1).max(SEARCH_LIMIT.max).optional().describe(`Hits, 1 to ${SEARCH_LIMIT.max} (default ${SEARCH_LIMIT.default})`),
  },
  output: {
    data: z.array(
      z.object({ type: z.enum(SEARCH_KINDS), id: z.number().int(), name: z.string(), matched: z.string(), score: z.number() }),
    ),
  },
  run: async ({ q, types, limit }, get) => {
    const answer = await get('/api/search', { q, types: types?.join(','), limit });
    if (answer.status !== 200) return toolError(answer);
    return toolResult({ data: (answer.body as { data: unknown[] }).data });
  },
});
