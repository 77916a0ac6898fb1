/**
 * One list page as one statement: the page's ids and sort values are chosen first (by index, nothing
 * built for skipped rows), then joined back to their rows, whose JSON PostgreSQL builds. The arguments
 * are read by readListRequest, exactly as the resolver reads them; the where, order and window it
 * returns are written here as SQL instead of being handed to Prisma.
 */
import type { Resource } from '../filter/index.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { ListArgs } from '../schema/list.ts';
import { delegateOf, once, readListRequest, type ListDefinition } from '../schema/list-query.ts';
import { encodeCursor, type SortKey } from '../schema/list-order.ts';
import { countOrEstimate, type PageTotal } from '../sql/count.ts';
import { JsonText } from './json-text.ts';
import type { Model, Models } from './model.ts';
import { column, joinCondition, NotCompiled, Statement, table } from './statement.ts';
import { whereSql } from './where.ts';
import { CODECS } from '../values/codecs.ts';

export interface CompiledList {
  model: Model;
  models: Models;
  /** The JSON of one row (alias `r`), written once per operation. */
  selection: string;
  /** The list object's response keys in order: `data`, `page` (with its fields) or `__typename`. */
  shape: ({ key: string; data: true } | { key: string; page: PageKey[] } | { key: string; typename: string })[];
}

interface PageKey {
  key: string;
  field: string;
  typename: string;
}

interface PageRow {
  /** The row's JSON as PostgreSQL wrote it. */
  j: string;
  [key: `k${number}`]: unknown;
}

export async function readList(
  list: CompiledList,
  definition: ListDefinition<Resource>,
  context: GraphQLContext,
  args: ListArgs,
  selectionParams: readonly unknown[],
) {
  const { model } = list;
  const request = await readListRequest(definition, args, context);
  const statement = new Statement(list.models, selectionParams, 'w');
  const where = whereSql(statement, model, 'r', request.pageWhere);
  const keys = request.keys.map((key, index) => ({ key, value: sortValue(statement, model, key), name: `k${index}` }));
  const order = (expression: (key: (typeof keys)[number]) => string) =>
    keys.map((entry) => `${expression(entry)} ${entry.key.direction === 'asc' ? 'ASC' : 'DESC'}${entry.key.field.nullable ? ' NULLS LAST' : ''}`).join(', ');

  const page = [
    `SELECT r.id${keys.map((entry) => `, ${entry.value} AS ${entry.name}`).join('')}`,
    `FROM ${table(model)} r WHERE ${where}`,
    `ORDER BY ${order((entry) => entry.value)}`,
    pageWindow(statement, request.window.limit + 1, request.skip),
  ].join(' ');
  const outputs = keys.map((entry) => `${cursorValue(entry.key, `p.${entry.name}`)} AS ${entry.name}`);
  const sql = `SELECT ${list.selection}::text AS j, ${outputs.join(', ')} FROM (${page}) p JOIN ${table(model)} r ON r.id = p.id ORDER BY ${order((entry) => `p.${entry.name}`)}`;
  const rows = await context.sql.prepared<PageRow>(sql, statement.params, context.signal);

  const { limit } = request.window;
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  // Written only when the page asks for it: encoding the cursor costs more than a small page's splicing.
  const nextCursor = () => (last ? encodeCursor(request.keys, args.filter, rowOfSortValues(request.keys, last)) : null);
  // Counted by Prisma as on the resolver path (in the estimate mode, from the plan of Prisma's probe).
  const total = once(() => countOrEstimate(context.prisma, delegateOf(context.prisma, definition.resource), request.where, context.exactTotalLimit));
  const result: Record<string, unknown> = {};
  for (const entry of list.shape) {
    if ('typename' in entry) result[entry.key] = entry.typename;
    else if ('data' in entry) result[entry.key] = rows.slice(0, limit).map((row) => new JsonText(row.j));
    else {
      const pageObject: Record<string, unknown> = {};
      for (const pageKey of entry.page) {
        pageObject[pageKey.key] = await pageValue(pageKey, {
          limit,
          offset: request.skip,
          nextCursor,
          total,
        });
      }
      result[entry.key] = pageObject;
    }
  }
  return result;
}

async function pageValue(
  pageKey: PageKey,
  page: { limit: number; offset: number; nextCursor: () => string | null; total: () => Promise<PageTotal> },
): Promise<unknown> {
  switch (pageKey.field) {
    case '__typename':
      return pageKey.typename;
    case 'total':
      return (await page.total()).total;
    case 'total_is_estimate':
      return (await page.total()).estimated;
    case 'next_cursor':
      return page.nextCursor();
    default:
      return page[pageKey.field as 'limit' | 'offset'];
  }
}

/**
 * The page's LIMIT is written into the text (a validated integer, one of a few per operation): bound as
 * a parameter, the planner would cost a generic plan as if a tenth of the table were read and re-plan
 * every execution, which cost more than the rest of a flat page's statement. An OFFSET stays a
 * parameter (its values are open-ended, each would be a statement of its own); the first page has none.
 */
function pageWindow(statement: Statement, take: number, skip: number): string {
  if (!Number.isSafeInteger(take) || take < 1) throw new Error(`a page of ${take} rows`);
  return skip === 0 ? `LIMIT ${take}` : `LIMIT ${take} OFFSET ${statement.param(skip)}`;
}

/** A sort value as the driver should hand it to encodeCursor, so cursors are the resolvers' to the byte. */
const cursorValue = (key: SortKey, value: string): string => CODECS[key.field.kind].sortValueSql(value);

/** A sort key's value for a row: its column, or a column one to-one relation away. */
function sortValue(statement: Statement, model: Model, key: SortKey): string {
  const [head, ...rest] = key.field.path;
  if (rest.length === 0) return column('r', head!);
  const relation = model.relations.get(head!);
  if (!relation || relation.isList || rest.length > 1) throw new NotCompiled('sort', `sort by ${key.field.path.join('.')}`);
  const alias = statement.alias();
  const related = statement.model(relation.model);
  return `(SELECT ${column(alias, rest[0]!)} FROM ${table(related)} ${alias} WHERE ${joinCondition('r', alias, relation.from, relation.to)})`;
}

/** The shape encodeCursor reads sort values from: the values at their Prisma paths. */
function rowOfSortValues(keys: SortKey[], row: PageRow): Record<string, unknown> {
  const shaped: Record<string, unknown> = {};
  keys.forEach((key, index) => {
    const path = key.field.path;
    let target = shaped;
    for (const step of path.slice(0, -1)) target = (target[step] ??= {}) as Record<string, unknown>;
    target[path[path.length - 1]!] = row[`k${index}`];
  });
  return shaped;
}
