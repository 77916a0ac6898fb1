/**
 * usage_buckets is partitioned by the UTC month of its hour (migration 20261125000000_usage_buckets_by_month).
 * This keeps this month and the next two created, and drops a month once all of it is older than
 * USAGE_RETENTION_DAYS (0 keeps everything): at start-up and daily. A row counted for a month without
 * a partition (the service stopped for months, a clock far off) is kept in usage_buckets_default;
 * creating its month moves it into place, so no count is lost either way.
 */
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';

/** Months created beyond the current one. */
export const MONTHS_AHEAD = 2;
const DAY_MS = 86_400_000;
const PARTITION_NAME = /^usage_buckets_(\d{4})_(\d{2})$/;
const COLUMNS = 'org_id, client_id, bucket, endpoint, request_count, error_count, rows_exported';

export interface PartitionChanges {
  created: string[];
  dropped: string[];
}

/** Months as UTC month starts; `offset` months after the month holding `at`. */
const monthStart = (at: Date, offset = 0): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
const monthKey = (month: Date): string => `${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
export const partitionName = (month: Date): string => `usage_buckets_${monthKey(month)}`;

/** Creates the months due (moving their rows out of the default partition) and drops expired ones. */
export async function maintainUsagePartitions(sql: Pick<SqlClient, 'transaction'>, now: Date, retentionDays: number): Promise<PartitionChanges> {
  return sql.transaction(async (tx) => {
    // Writers wait for this short lock and it waits for them, so no row lands in the default partition
    // between moving a month out of it and attaching that month; two instances take turns.
    await tx.exec('LOCK TABLE usage_buckets IN SHARE ROW EXCLUSIVE MODE');
    const partitions = await tx.query<{ name: string }>(
      `SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid
        WHERE pg_inherits.inhparent = 'usage_buckets'::regclass`,
    );
    const existing = new Map<string, Date>();
    for (const { name } of partitions) {
      const match = PARTITION_NAME.exec(name);
      if (match) existing.set(name, new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1)));
    }
    const stranded = await tx.query<{ year: number; month: number }>(
      `SELECT DISTINCT extract(year FROM bucket AT TIME ZONE 'UTC')::int AS year, extract(month FROM bucket AT TIME ZONE 'UTC')::int AS month
         FROM usage_buckets_default`,
    );
    const due = [
      ...Array.from({ length: MONTHS_AHEAD + 1 }, (_, offset) => monthStart(now, offset)),
      ...stranded.map((row) => new Date(Date.UTC(row.year, row.month - 1, 1))),
    ];

    const created: string[] = [];
    for (const month of due) {
      const name = partitionName(month);
      if (existing.has(name)) continue;
      const from = month.toISOString();
      const to = monthStart(month, 1).toISOString();
      await tx.exec(`CREATE TABLE "${name}" (LIKE usage_buckets INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
      await tx.query(
        `WITH moved AS (DELETE FROM usage_buckets_default WHERE bucket >= $1 AND bucket < $2 RETURNING ${COLUMNS})
         INSERT INTO "${name}" (${COLUMNS}) SELECT ${COLUMNS} FROM moved`,
        [from, to],
      );
      await tx.exec(`ALTER TABLE usage_buckets ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`);
      existing.set(name, month);
      created.push(name);
    }

    const dropped: string[] = [];
    if (retentionDays > 0) {
      const cutoff = now.getTime() - retentionDays * DAY_MS;
      for (const [name, month] of existing) {
        if (monthStart(month, 1).getTime() > cutoff) continue;
        await tx.exec(`DROP TABLE "${name}"`);
        dropped.push(name);
      }
    }
    return { created: created.sort(), dropped: dropped.sort() };
  });
}

export interface PartitionMaintenance {
  /** Settles when the start-up run has finished (whether it succeeded or was logged as failed). */
  readonly started: Promise<void>;
  close(): void;
}

export const MAINTENANCE_INTERVAL_MS = DAY_MS;

/** Runs the maintenance now and daily; a failed run is logged and retried at the next. */
export function scheduleUsagePartitions(options: {
  sql: Pick<SqlClient, 'transaction'>;
  logger: Logger;
  retentionDays: number;
  now: () => Date;
}): PartitionMaintenance {
  const run = async (): Promise<void> => {
    try {
      const changes = await maintainUsagePartitions(options.sql, options.now(), options.retentionDays);
      if (changes.created.length || changes.dropped.length) options.logger.info(changes, 'usage partitions maintained');
    } catch (error) {
      options.logger.warn({ err: error }, 'usage partition maintenance failed; rows without a month go to usage_buckets_default meanwhile');
    }
  };
  const timer = setInterval(() => void run(), MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return { started: run(), close: () => clearInterval(timer) };
}
