/**
 * Facts about paged lists the GraphQL types do not carry: the largest `limit`, the default `sort`
 * and which filterable resource the rows are. They come from the same ListDefinition objects the list
 * resolvers use (src/schema/*.ts), keyed by the row type, so the document cannot drift from them.
 */
// The schema index first: it registers the types in their documented order (schema.graphql).
import '../schema/index.ts';
import { API_KEY_LIST_MAX_LIMIT } from '../auth/api-keys.ts';
import type { Resource } from '../filter/index.ts';
import { ENTITY_LIST } from '../schema/entity.ts';
import { LOCATION_LOOKUP_MAX_LIMIT } from '../schema/filters.ts';
import { FOUNDER_LIST } from '../schema/founder.ts';
import { INVESTOR_LIST } from '../schema/investor.ts';
import type { ListDefinition } from '../schema/list-query.ts';
import { NEWS_LIST } from '../schema/news.ts';
import { TRANSACTION_LIST } from '../schema/transaction.ts';
import { VALUATION_LIST } from '../schema/valuation.ts';

export interface ListFacts {
  maxLimit: number;
  /** Filterable and sortable lists only. */
  resource?: Resource;
  defaultSort?: string;
}

const DEFINITIONS: readonly ListDefinition<Resource>[] = [
  ENTITY_LIST,
  INVESTOR_LIST,
  FOUNDER_LIST,
  TRANSACTION_LIST,
  VALUATION_LIST,
  NEWS_LIST,
];

const BY_TYPE: ReadonlyMap<string, ListFacts> = new Map<string, ListFacts>([
  ...DEFINITIONS.map((definition): [string, ListFacts] => [
    definition.typeName,
    { maxLimit: definition.maxLimit, resource: definition.resource, defaultSort: definition.defaultSort },
  ]),
  // API keys page without filter or sort (src/auth/api-keys.ts).
  ['ApiKey', { maxLimit: API_KEY_LIST_MAX_LIMIT }],
  // The location look-up returns at most this many names (src/schema/filters.ts).
  ['Location', { maxLimit: LOCATION_LOOKUP_MAX_LIMIT }],
]);

/** The facts for a list of `typeName` rows; undefined when none are known (the document then omits them). */
export function listFacts(typeName: string): ListFacts | undefined {
  return BY_TYPE.get(typeName);
}
