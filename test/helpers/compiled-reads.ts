/**
 * Which path served a request, from the compiled reads' counters on /metrics (src/graphql/use-compiled-reads.ts):
 * operations compiled, of those the ones served without the GraphQL pipeline, and fallbacks by reason.
 */
import type { SqlClient } from '../../src/db/client.ts';
import type { TestApp } from './app.ts';

export interface CompiledReadCounters {
  compiled: number;
  direct: number;
  /** By reason; every reason is listed, from zero. */
  fallbacks: Record<string, number>;
}

export async function readCompiledReadCounters(app: TestApp): Promise<CompiledReadCounters> {
  const text = await (await app.fetch('/metrics')).text();
  const value = (name: string): number => {
    const line = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    if (!line) throw new Error(`/metrics has no ${name}`);
    return Number(line[1]);
  };
  const fallbacks = Object.fromEntries(
    [...text.matchAll(/^compiled_reads_fallback_total\{reason="(\w+)"\} (\d+)$/gm)].map(([, reason, count]) => [reason!, Number(count)]),
  );
  return { compiled: value('compiled_reads_total'), direct: value('compiled_reads_direct_total'), fallbacks };
}

/** What `work` moved: the counters' growth, with only the fallback reasons that grew. */
export async function compiledReadsMovedBy(app: TestApp, work: () => Promise<unknown>): Promise<CompiledReadCounters> {
  const before = await readCompiledReadCounters(app);
  await work();
  const after = await readCompiledReadCounters(app);
  const fallbacks = Object.fromEntries(
    Object.entries(after.fallbacks)
      .map(([reason, count]) => [reason, count - (before.fallbacks[reason] ?? 0)] as const)
      .filter(([, count]) => count !== 0),
  );
  return { compiled: after.compiled - before.compiled, direct: after.direct - before.direct, fallbacks };
}

/** A statement of the compiled reads as the app sent it, parameters included. */
export interface SentStatement {
  sql: string;
  params: readonly unknown[];
}

/**
 * The database as an app sees it, with every statement of its compiled reads (SqlClient.prepared, which
 * only they use) appended to `sent` before it runs: what PostgreSQL received, in order.
 */
export function recordingStatements<Db extends { sql: SqlClient }>(db: Db): { db: Db; sent: SentStatement[] } {
  const sent: SentStatement[] = [];
  const prepared: SqlClient['prepared'] = (sql, params, signal) => {
    sent.push({ sql, params: [...params] });
    return db.sql.prepared(sql, params, signal);
  };
  return { db: { ...db, sql: { ...db.sql, prepared } }, sent };
}
