/**
 * An export's files in the database, so every instance serves them: each file's bytes in parts
 * (about 256 KiB each, PART_BYTES) written as the job goes, and a row per finished file. Every write checks, in its
 * own transaction, that the job still holds its lease: a runner that lost it (its instance stalled
 * and another took the job over) writes nothing more, so no file is ever written twice.
 */
import type { SqlClient, SqlTransaction } from '../db/client.ts';

/** Who holds a running export: its id and the token its claim wrote. */
export interface Lease {
  readonly exportId: number;
  readonly owner: string;
  readonly leaseMs: number;
}

/** The job lost its lease (taken over, or the export was cancelled): it stops, writing nothing more. */
export class LeaseLost extends Error {
  override readonly name = 'LeaseLost';
}

/** Renews the lease and records progress; throws LeaseLost when the job no longer holds it. */
export async function renewLease(tx: SqlTransaction, lease: Lease, rowsWritten: number): Promise<void> {
  const rows = await tx.query(
    `UPDATE exports SET lease_until = now() + $3::int * interval '1 millisecond', rows_written = $4
      WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`,
    [lease.exportId, lease.owner, lease.leaseMs, rowsWritten],
  );
  if (!rows.length) throw new LeaseLost(`export ${lease.exportId} is no longer this runner's`);
}

/** Runs `work` in a transaction that holds the lease (renewed, with progress), or throws LeaseLost. */
export function underLease<T>(sql: SqlClient, lease: Lease, rowsWritten: number, work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
  return sql.transaction(async (tx) => {
    await renewLease(tx, lease, rowsWritten);
    return work(tx);
  });
}

export interface StoredFile {
  n: number;
  bytes: number;
  sha256: string;
  rows: number;
}

export const storePart = (tx: SqlTransaction, exportId: number, n: number, part: number, offset: number, data: Buffer): Promise<unknown> =>
  tx.query('INSERT INTO export_file_parts (export_id, n, part, "offset", data) VALUES ($1, $2, $3, $4, $5)', [exportId, n, part, offset, data]);

export const storeFile = (tx: SqlTransaction, exportId: number, file: StoredFile): Promise<unknown> =>
  tx.query('INSERT INTO export_files (export_id, n, bytes, sha256, rows) VALUES ($1, $2, $3, $4, $5)', [exportId, file.n, file.bytes, file.sha256, file.rows]);

/** What an earlier attempt left: a job redone starts from nothing. */
export async function dropFiles(tx: SqlTransaction, exportId: number): Promise<void> {
  await tx.query('DELETE FROM export_file_parts WHERE export_id = $1', [exportId]);
  await tx.query('DELETE FROM export_files WHERE export_id = $1', [exportId]);
}

export async function listFiles(sql: Pick<SqlClient, 'query'>, exportId: number): Promise<StoredFile[]> {
  const rows = await sql.query<{ n: number; bytes: string; sha256: string; rows: number }>(
    'SELECT n, bytes::text AS bytes, sha256, rows FROM export_files WHERE export_id = $1 ORDER BY n',
    [exportId],
  );
  return rows.map((row) => ({ n: row.n, bytes: Number(row.bytes), sha256: row.sha256, rows: row.rows }));
}

/**
 * The bytes `start`..`end` (inclusive) of a file, a part at a time: one short statement per part, so
 * a large download holds neither a connection nor more than a part of memory.
 */
export async function* readRange(sql: Pick<SqlClient, 'query'>, exportId: number, n: number, start: number, end: number): AsyncGenerator<Buffer> {
  let part = -1;
  for (;;) {
    const [row] = await sql.query<{ part: number; offset: string; data: Uint8Array }>(
      `SELECT part, "offset"::text AS "offset", data FROM export_file_parts
        WHERE export_id = $1 AND n = $2 AND part > $3 AND "offset" + octet_length(data) > $4 AND "offset" <= $5
        ORDER BY part LIMIT 1`,
      [exportId, n, part, start, end],
    );
    if (!row) return;
    part = row.part;
    const offset = Number(row.offset);
    const data = Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
    yield data.subarray(Math.max(0, start - offset), Math.min(data.length, end + 1 - offset));
  }
}
