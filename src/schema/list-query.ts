/**
 * The one implementation of a list field: filter (src/filter), scope, sort with the id tie-breaker,
 * offset or keyset cursor, the page object, and the nested selection from the GraphQL query so the
 * rows come back with their relations in one batched statement per table.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { Prisma } from '../db/generated/prisma/client.ts';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { compileFilter, type CompiledFilter, type Resource, type WhereFor } from '../filter/index.ts';
import { precomputeAllOf, type FindIds } from '../sql/all-of.ts';
import { countOrEstimate, type Countable } from '../sql/count.ts';
import { captureStatement, type CapturedStatement } from '../sql/statement-capture.ts';
import type { GraphQLContext } from './context.ts';
import { requireReadPermissions } from './read-permissions.ts';
import { parseWindow, type ListArgs, type ListShape, type Window } from './list.ts';
import { decodeCursor, encodeCursor, keysetWhere, parseSort, toOrderBy, type SortKey } from './list-order.ts';

export interface ListDefinition<R extends Resource> {
  resource: R;
  /** The GraphQL type of the rows (for the nested selection). */
  typeName: string;
  maxLimit: number;
  /** `sort` when the client gives none, e.g. `id` or `-publish_date`. */
  defaultSort: string;
  /** Conditions always ANDed on (never merged into the client's filter), e.g. hiding soft-deleted rows. */
  scope?(filter: CompiledFilter<R>): WhereFor<R> | undefined;
  /**
   * Other resources `scope` reaches (an ecosystem's stored filter with `investor__` conditions): the
   * caller needs their read permission as if its own filter named them.
   */
  scopeReaches?: ReadonlySet<Resource>;
}

/**
 * A list root field whose rows depend on a record the request names (an ecosystem's entities): the list
 * for these arguments, found by the resolver and by src/compile alike (`extensions.listFor`).
 */
export type ListFor<R extends Resource> = (args: Record<string, unknown>, context: GraphQLContext) => Promise<ListDefinition<R>>;

/** A by-id root field: which record an id names (e.g. only live entities), for resolvers and src/compile. */
export interface RecordDefinition {
  where(id: number): object;
}

/**
 * The order of a text search (`name[contains]:air`) when the client gives no `sort`: the best-known
 * records first (most funding raised or invested), then by name, so "find the company called X"
 * shows X above the many small namesakes. Resources not listed keep their default order.
 */
const SEARCH_SORT: Partial<Record<Resource, string>> = {
  entities: '-total_funding_usd,name',
  investors: '-total_invested_usd,name',
  founders: 'name',
};

export interface ListLoader<Row> {
  findMany(args: { where: object; orderBy: object[]; take: number; skip: number; select?: object; include?: object }): Promise<Row[]>;
  count(args: { where: object }): Promise<number>;
}

/** Calls `work` once, however many fields ask (`total` and `total_is_estimate`). */
export function once<T>(work: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= work());
}

type Selection = { select?: Record<string, unknown>; include?: Record<string, unknown> };

/** The Prisma model whose rows each read resource's records are. */
export const RESOURCE_MODEL = {
  entities: 'Entity',
  founders: 'Founder',
  investors: 'Investor',
  transactions: 'FundingRound',
  valuations: 'Valuation',
  news: 'NewsArticle',
} as const satisfies Record<Resource, Prisma.ModelName>;

/** A resource's Prisma delegate (`prisma.fundingRound` for FundingRound), for what every resource's table answers alike (ids, counts). */
export function delegateOf(prisma: GraphQLContext['prisma'], resource: Resource): Countable & {
  findMany(args: { where: object; select: { id: true } }): Promise<{ id: number }[]>;
} {
  const model = RESOURCE_MODEL[resource];
  return (prisma as unknown as Record<string, never>)[model.charAt(0).toLowerCase() + model.slice(1)]!;
}

/** Ids of any resource's records matching a where input (for precomputeAllOf). */
function findIdsWith(context: GraphQLContext): FindIds {
  return async (resource, where) => (await delegateOf(context.prisma, resource).findMany({ where, select: { id: true } })).map((row) => row.id);
}

/** Makes sure the rows carry every sort key, which the next cursor is made of. */
function withSortKeys(query: Selection, keys: SortKey[]): Selection {
  const select = query.select ? { ...query.select } : undefined;
  const include = query.include ? { ...query.include } : undefined;
  for (const { field } of keys) {
    const [head, ...rest] = field.path;
    if (rest.length === 0) {
      if (select) select[head!] = true;
      continue;
    }
    // Registry sort paths are a column or one to-one relation deep (an investor's entity.name).
    if (rest.length > 1) throw new Error(`sort path ${field.path.join('.')} is deeper than one relation`);
    const target = (select ?? include)!;
    const existing = target[head!] as Selection | boolean | undefined;
    if (existing === true || (typeof existing === 'object' && !existing.select)) continue;
    const nested = typeof existing === 'object' ? existing : {};
    target[head!] = { ...nested, select: { ...nested.select, [rest[0]!]: true } };
  }
  return select ? { select } : include ? { include } : {};
}

/**
 * An offset page in two statements: the ids of the page first (the database skips index entries and
 * builds nothing for the skipped rows), then those rows with their nested selection. In one statement
 * the nested relations (LATERAL joins building JSON) would be built for every skipped row before OFFSET
 * discards it, which made a deep offset cost seconds per hundred thousand rows.
 */
async function skipThenLoad<Row>(
  loader: ListLoader<Row>,
  query: Selection,
  page: { where: object; orderBy: object[]; take: number; skip: number },
): Promise<Row[]> {
  const ids = (await loader.findMany({ ...page, select: { id: true } })) as { id: number }[];
  if (ids.length === 0) return [];
  const where = { id: { in: ids.map((row) => row.id) } };
  return loader.findMany({ ...query, where, orderBy: page.orderBy, take: ids.length, skip: 0 });
}

/** What a list request asks for, checked and translated: the same for the resolvers and src/compile. */
export interface ListRequest<R extends Resource> {
  window: Window;
  keys: SortKey[];
  /** The last row's sort values from the cursor, if there is one. */
  after: unknown[] | undefined;
  /** The list's rows: filter and scope (a total counts these). */
  where: WhereFor<R> | { AND: object[] };
  /** The page's rows: `where` and, with a cursor, the keyset condition. */
  pageWhere: object;
  /** Rows to skip before the page (0 with a cursor). */
  skip: number;
  /** The client's filter, checked and translated. */
  filter: CompiledFilter<R>;
}

export async function readListRequest<R extends Resource>(
  definition: ListDefinition<R>,
  args: ListArgs,
  context: GraphQLContext,
): Promise<ListRequest<R>> {
  const window = parseWindow(args, definition.maxLimit);
  const filter = compileFilter(definition.resource, args.filter);
  // Rows, totals and aggregates alike: each tells about the related records its conditions reach.
  if (filter.relatedResources.size || definition.scopeReaches?.size) {
    requireReadPermissions(context, [...filter.relatedResources, ...(definition.scopeReaches ?? [])]);
  }
  if (filter.deprecatedOperatorUsed) context.responseHeaders.set('Deprecation', 'true');
  const defaultSort = (filter.searchesText && SEARCH_SORT[definition.resource]) || definition.defaultSort;
  const keys = parseSort(definition.resource, args.sort, defaultSort);
  const after = args.cursor != null ? decodeCursor(args.cursor, keys, args.filter) : undefined;

  const filterWhere = filter.manyValuedAllOf.length
    ? filter.whereWith(await precomputeAllOf(definition.resource, filter.manyValuedAllOf, findIdsWith(context)))
    : filter.where;
  const conditions = [filterWhere, definition.scope?.(filter)].filter((condition) => condition !== undefined);
  const where = conditions.length === 1 ? conditions[0]! : { AND: conditions as object[] };
  const pageWhere = after ? { AND: [where, keysetWhere(keys, after)] } : where;
  return { window, keys, after, where, pageWhere, skip: after ? 0 : window.offset, filter };
}

export async function resolveList<R extends Resource, Row>(
  definition: ListDefinition<R>,
  args: ListArgs,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  loader: ListLoader<Row>,
): Promise<ListShape<Row>> {
  const { window, keys, after, where, pageWhere, skip } = await readListRequest(definition, args, context);
  const query = withSortKeys(
    queryFromInfo({ context, info, typeName: definition.typeName, path: ['data'] }) as Selection,
    keys,
  );
  const orderBy = toOrderBy(keys);
  const findPage = (marker?: object) => {
    const marked = marker ? { AND: [pageWhere, marker] } : pageWhere;
    return skip === 0
      ? loader.findMany({ ...query, where: marked, orderBy, take: window.limit + 1, skip: 0 })
      : skipThenLoad(loader, query, { where: marked, orderBy, take: window.limit + 1, skip });
  };
  // In the estimate mode (EXACT_TOTAL_LIMIT), without a cursor, the page's first statement has the
  // list's where: its plan tells the total's size for free (src/sql/count.ts). With a cursor the keyset
  // condition is in it, so the total probes; with exact totals (the default) nothing is captured.
  let pageStatement: CapturedStatement | null | undefined;
  const rows = after || !context.exactTotalLimit
    ? await findPage()
    : await captureStatement(findPage).then(({ result, statement }) => ((pageStatement = statement ?? null), result));

  const data = rows.slice(0, window.limit);
  const hasMore = rows.length > window.limit;
  return {
    data,
    page: {
      limit: window.limit,
      offset: skip,
      next_cursor: hasMore ? encodeCursor(keys, args.filter, data[data.length - 1]) : null,
      count: once(() => countOrEstimate(context.prisma, loader as Countable, where, context.exactTotalLimit, pageStatement)),
    },
  };
}

export interface PagedList<Row, Where> {
  /** The row type, for the nested selection. */
  typeName: string;
  maxLimit: number;
  /** Which rows; checked after the window, so it may first check access (404 or 403 for the record). */
  where(): Where | Promise<Where>;
  /** Rows in the list's fixed order. */
  findMany(query: Selection & { where: Where; take: number; skip: number }): Promise<Row[]>;
  count(query: { where: Where }): Promise<number>;
}

/**
 * A list without filter or sort (management records in their fixed order): limit and offset, the
 * nested selection from the GraphQL query, the total only when selected.
 */
export async function resolvePagedList<Row, Where>(
  list: PagedList<Row, Where>,
  args: ListArgs,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<ListShape<Row>> {
  const window = parseWindow(args, list.maxLimit);
  const where = await list.where();
  const query = queryFromInfo({ context, info, typeName: list.typeName, path: ['data'] }) as Selection;
  const data = await list.findMany({ ...query, where, take: window.limit, skip: window.offset });
  return { data, page: { ...window, next_cursor: null, count: () => list.count({ where }) } };
}
