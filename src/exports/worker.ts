/**
 * Runs exports in the background, on every instance: each tick claims a queued export (or a running
 * one whose lease ran out: its instance stopped) under a new lease, at most 2 running per
 * organisation, and runs it (src/exports/job.ts). The claim is one transaction under a global lock, so
 * two instances never take the same job or a third of one organisation's. While it runs, every write
 * renews the lease; one that finds it gone (cancelled, or taken over) stops at once.
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { LeaseLost, type Lease } from './file-store.ts';
import { ExportFailed, runExport, Stopped, type JobDeps } from './job.ts';
import { expireExports, type ExportRow } from './store.ts';

export const MAX_RUNNING_PER_ORGANISATION = 2;

export interface ExportWorkerOptions extends Omit<JobDeps, 'stopping'> {
  logger: Logger;
  pollMs: number;
  leaseMs: number;
  retentionDays: number;
  /** How many exports this instance runs at once. */
  concurrency?: number;
  /** Told when an export finished (webhook events, usage). */
  onFinished?(row: ExportRow, outcome: { status: 'succeeded' | 'failed'; rows: number }): Promise<void>;
}

export interface ExportWorker {
  /** Looks for work now (a new export was just queued on this instance). */
  wake(): void;
  stop(): Promise<void>;
}

const CLAIM = `
  UPDATE exports SET status = 'running', lease_owner = $1, lease_until = now() + $2::int * interval '1 millisecond',
         started_at = coalesce(started_at, now()), attempts = attempts + 1
   WHERE id = (
     SELECT e.id FROM exports e
      WHERE (e.status = 'queued' OR (e.status = 'running' AND e.lease_until < now()))
        AND (SELECT count(*) FROM exports r
              WHERE r.org_id = e.org_id AND r.status = 'running' AND r.lease_until >= now()) < ${MAX_RUNNING_PER_ORGANISATION}
      ORDER BY e.id LIMIT 1)
  RETURNING id, org_id, created_by, principal, resource, format, filter, fields, since, status, rows_written, rows_estimated,
            cursor, columns, error, request_hash, created_at, started_at, finished_at, expires_at`;

async function claim(sql: SqlClient, leaseMs: number): Promise<{ row: ExportRow; lease: Lease } | undefined> {
  return sql.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('exports:claim'))");
    const owner = randomUUID();
    const [row] = await tx.query<ExportRow>(CLAIM, [owner, leaseMs]);
    return row && { row, lease: { exportId: row.id, owner, leaseMs } };
  });
}

async function finish(options: ExportWorkerOptions, lease: Lease, status: 'succeeded' | 'failed', rows: number, error?: { code: string; message: string }): Promise<boolean> {
  const updated = await options.sql.query(
    `UPDATE exports SET status = $3, rows_written = $4, error = $5, finished_at = now(), lease_owner = NULL, lease_until = NULL,
            expires_at = CASE WHEN $3 = 'succeeded' THEN now() + $6::int * interval '1 day' END
      WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`,
    [lease.exportId, lease.owner, status, rows, error ? JSON.stringify(error) : null, options.retentionDays],
  );
  return updated.length > 0;
}

async function runClaimed(options: ExportWorkerOptions, row: ExportRow, lease: Lease, stopping: () => boolean): Promise<void> {
  let status: 'succeeded' | 'failed' = 'succeeded';
  let rows = 0;
  let reason: { code: string; message: string } | undefined;
  try {
    rows = await runExport({ ...options, stopping }, row, lease);
  } catch (error) {
    if (error instanceof LeaseLost) {
      options.logger.info({ exportId: row.id }, 'export stopped: cancelled, or taken over by another runner');
      return;
    }
    if (error instanceof Stopped) {
      // Shutting down: the export waits for the next runner (this instance again, or another), which redoes it.
      await options.sql.query("UPDATE exports SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2", [lease.exportId, lease.owner]);
      return;
    }
    status = 'failed';
    reason = error instanceof ExportFailed ? { code: error.code, message: error.message } : { code: 'INTERNAL_ERROR', message: 'The export failed; try again' };
    if (!(error instanceof ExportFailed)) options.logger.error({ err: error, exportId: row.id }, 'export failed');
  }
  if (await finish(options, lease, status, rows, reason)) await options.onFinished?.(row, { status, rows });
}

export function startExportWorker(options: ExportWorkerOptions): ExportWorker {
  const concurrency = options.concurrency ?? 1;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<void>>();

  const tick = async (): Promise<void> => {
    if (stopped) return;
    try {
      await expireExports(options.sql);
      while (!stopped && running.size < concurrency) {
        const claimed = await claim(options.sql, options.leaseMs);
        if (!claimed) break;
        const job = runClaimed(options, claimed.row, claimed.lease, () => stopped)
          .catch((error: unknown) => options.logger.warn({ err: error, exportId: claimed.row.id }, 'export job ended badly'))
          .finally(() => {
            running.delete(job);
            wake();
          });
        running.add(job);
      }
    } catch (error) {
      options.logger.warn({ err: error }, 'looking for exports failed; trying again shortly');
    }
  };

  const schedule = (delay: number): void => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void tick().finally(() => schedule(options.pollMs)), delay);
    timer.unref();
  };
  const wake = (): void => schedule(0);

  schedule(0);
  return {
    wake,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([...running]);
    },
  };
}
