/**
 * Changes are kept CHANGES_RETENTION_DAYS, and never pruned before every follower of the service has
 * passed them (a webhook event is not lost because its deliverer was down a month). Pruning removes
 * whole commits, oldest first, and remembers the last commit removed: a cursor before its end is expired.
 */
import type { SqlClient } from '../db/client.ts';

/** Commits removed per transaction, so a large backlog does not hold one long transaction. */
const BATCH = 2_000;

export async function pruneChanges(sql: SqlClient, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * 86_400_000);
  let removed = 0;
  for (;;) {
    const commits = await sql.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM change_retention FOR UPDATE');
      const [pruned] = await tx.query<{ position: string | null; commits: number }>(
        `WITH doomed AS (
           SELECT xid, position FROM change_commits
            WHERE committed_at < $1 AND position < (SELECT coalesce(min(position), 0) FROM change_followers)
            ORDER BY position LIMIT $2
         ), gone AS (
           DELETE FROM changes c USING doomed d WHERE c.xid = d.xid
         ), forgotten AS (
           DELETE FROM change_commits cc USING doomed d WHERE cc.xid = d.xid RETURNING 1
         )
         SELECT (SELECT max(position)::text FROM doomed) AS position, (SELECT count(*)::int FROM forgotten) AS commits`,
        [before.toISOString(), BATCH],
      );
      if (pruned!.position !== null) await tx.query('UPDATE change_retention SET position = $1', [pruned!.position]);
      return pruned!.commits;
    });
    removed += commits;
    if (commits < BATCH) return removed;
  }
}
