/**
 * `page.total`: exact when PostgreSQL expects few matches, the planner's estimate otherwise.
 *
 * An exact count reads every matching row (or index entry): with 1M entities, 150–350 ms for a broad
 * filter, and a way to keep the database busy. So the planner is asked first: EXPLAIN (planning
 * only, a millisecond or two) of a statement with the same where, the page's own or a one-row probe.
 * With EXACT_TOTAL_LIMIT set (e.g. 20,000), up to that many expected matches the rows are counted;
 * above it the estimate is returned, marked `total_is_estimate: true`. Unset (0), totals are exact. On the embedded database (no statement capture, small data)
 * totals are always exact.
 */
import type { PrismaClient } from '../db/client.ts';
import { captureStatement, type CapturedStatement } from './statement-capture.ts';

/** Above this many expected matches, `total` is PostgreSQL's estimate (EXACT_TOTAL_LIMIT); 0: always exact. */
export const DEFAULT_EXACT_TOTAL_LIMIT = 0;

export interface PageTotal {
  total: number;
  /** True when `total` is the planner's estimate rather than a count. */
  estimated: boolean;
}

export interface Countable {
  findMany(args: { where: object; select: { id: true }; take: number }): Promise<unknown[]>;
  count(args: { where: object }): Promise<number>;
}

interface PlanNode {
  'Node Type': string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

/** Rows the planner expects under the statement's first LIMIT: the number of matching records. */
function rowsUnderLimit(node: PlanNode): number | undefined {
  if (node['Node Type'] === 'Limit') return node.Plans?.[0]?.['Plan Rows'];
  for (const child of node.Plans ?? []) {
    const rows = rowsUnderLimit(child);
    if (rows !== undefined) return rows;
  }
  return undefined;
}

async function plannedRows(prisma: PrismaClient, statement: CapturedStatement): Promise<number | undefined> {
  const [row] = await prisma.$queryRawUnsafe<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
    `EXPLAIN (FORMAT JSON) ${statement.sql}`,
    ...statement.args,
  );
  const plan = row?.['QUERY PLAN']?.[0]?.Plan;
  return plan ? rowsUnderLimit(plan) : undefined;
}

export async function countOrEstimate(
  prisma: PrismaClient,
  table: Countable,
  where: object,
  exactLimit = DEFAULT_EXACT_TOTAL_LIMIT,
  /**
   * The page's statement, sent with exactly `where` under a LIMIT; `null` when the page was sent that
   * way but nothing was captured (the embedded database: a probe would capture nothing either).
   */
  pageStatement?: CapturedStatement | null,
): Promise<PageTotal> {
  if (exactLimit === 0) return { total: await table.count({ where }), estimated: false };
  // Else a probe reading at most one id; it is there for its SQL, which Prisma alone can write.
  const statement =
    pageStatement === undefined
      ? (await captureStatement((marker) => table.findMany({ where: { AND: [where, marker] }, select: { id: true }, take: 1 })))
          .statement
      : pageStatement;
  const expected = statement ? await plannedRows(prisma, statement) : undefined;
  if (expected === undefined || expected <= exactLimit) {
    return { total: await table.count({ where }), estimated: false };
  }
  return { total: Math.round(expected), estimated: true };
}
