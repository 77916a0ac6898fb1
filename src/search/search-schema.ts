/**
 * One search across companies, investors and founders, declared once: `search` and `GET /api/search`
 * (docs/finding-companies.md, "Search"). Any caller may ask; which kinds it searches follows its read
 * permissions (src/search/request.ts).
 */
import { ANY_CALLER } from '../auth/permissions.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { OWN_STATEMENT } from '../compile/operation.ts';
import { readSearchRequest, searchParameters } from './request.ts';
import { searchDomain } from './domain.ts';
import { runSearch, SEARCH_KINDS, type SearchHit } from './statement.ts';
import { builder } from '../schema/builder.ts';
import { declareResource } from '../schema/resource.ts';

export const SEARCH = declareResource({
  name: 'search',
  description: 'One search box over companies, investors and founders: by name (forgiving typos) or by website.',
  read: ANY_CALLER,
  replicaReads: true,
  rest: [
    {
      method: 'GET',
      path: '/api/search',
      operation: 'Search',
      kind: 'feed',
      query: [
        // Not `required` here: a missing q is the resolver's 400, after the permission check (403 first).
        { name: 'q', type: 'string' },
        { name: 'types', type: 'string' },
        { name: 'limit', type: 'integer' },
      ],
      querySchema: searchParameters,
    },
  ],
});

interface SearchResults {
  data: SearchHit[];
  page: { limit: number };
}

const SearchHitType = builder.objectRef<SearchHit>('SearchHit').implement({
  extensions: SEARCH.owns(),
  description: 'A record whose name (or website) matches the search',
  fields: (t) => ({
    type: t.exposeString('type', { description: `The kind of record: ${SEARCH_KINDS.join(', ')}; its id is the id of that resource` }),
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    matched: t.exposeString('matched', { description: 'The text that matched: the name, or the website when the query was its domain' }),
    score: t.exposeFloat('score', {
      description:
        'Match quality from 0 to 1: 1 the same name or website, 0.95 the same letters spaced otherwise, 0.9 a name starting with the query, below 0.8 a similar name; hits come in its order',
    }),
  }),
});

const SearchPage = builder.objectRef<SearchResults['page']>('SearchPage').implement({
  extensions: SEARCH.owns(),
  fields: (t) => ({ limit: t.exposeInt('limit') }),
});

const SearchResultsType = builder.objectRef<SearchResults>('SearchResults').implement({
  extensions: SEARCH.owns(),
  description: 'The best hits first: by their score, then by prominence (money raised or invested, rounds, portfolio)',
  fields: (t) => ({
    data: t.field({ type: [SearchHitType], resolve: (results) => results.data }),
    page: t.field({ type: SearchPage, resolve: (results) => results.page }),
  }),
});

builder.queryFields((t) => ({
  search: t.field({
    type: SearchResultsType,
    extensions: { ...SEARCH.reads, ...OWN_STATEMENT },
    description: 'Companies, investors and founders by name (prefix, typos forgiven) or, for a domain, URL or e-mail address, by website',
    args: {
      q: t.arg.string({ description: `${searchParameters.shape.q.description} (required)` }),
      types: t.arg.string({ description: searchParameters.shape.types.description }),
      limit: t.arg.int({ description: searchParameters.shape.limit.description }),
    },
    resolve: async (_root, args, context) => {
      const query = readSearchRequest(requirePrincipal(context.principal), args, searchDomain);
      return { data: await runSearch(context.sql, query, context.signal), page: { limit: query.limit } };
    },
  }),
}));
