/**
 * What matching's u probabilities are made of (match_statistics, entity_name_word_counts: the
 * match_linkage migration) is derived after every import and seed. Entities written otherwise (plain
 * SQL) are counted at start: when the live entities differ from those the statistics counted by more
 * than a tenth, they are derived again before serving (docs/finding-companies.md, "How they are weighed").
 */
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';

/** Any fixed key: one instance derives them while another starting at once waits. */
const REFRESH_LOCK = 447_001_928;
/** How far the live entities may drift from the counted ones before a start derives them again. */
const DRIFT = 0.1;

/** Derives the statistics again if the entities changed by more than DRIFT since; says whether it did. */
export async function refreshStaleMatchStatistics(sql: Pick<SqlClient, 'transaction'>, logger: Pick<Logger, 'info'>): Promise<boolean> {
  return sql.transaction(async (tx) => {
    // Start-up work runs to its end, as migrations and the demo load do (docs/operations.md).
    await tx.exec('SET LOCAL statement_timeout = 0');
    await tx.query('SELECT pg_advisory_xact_lock($1)', [REFRESH_LOCK]);
    const [row] = await tx.query<{ counted: number | null; live: number }>(
      `SELECT (SELECT value FROM match_statistics WHERE comparison = 'name' AND level = 'entities') AS counted,
              (SELECT count(*)::int FROM entities WHERE deleted_at IS NULL) AS live`,
    );
    const counted = row?.counted === null || row?.counted === undefined ? null : Number(row.counted);
    const live = Number(row?.live ?? 0);
    if (counted !== null && Math.abs(live - counted) <= DRIFT * Math.max(counted, 1)) return false;
    logger.info({ counted, live }, 'deriving the statistics matching weighs by (the entities changed since they were counted)');
    await tx.exec('SELECT match_statistics_refresh()');
    return true;
  });
}
