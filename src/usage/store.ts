/**
 * usage_buckets in SQL: the additive upsert the counter flushes with, and the time-series read.
 * Adding (never overwriting) is what lets any number of instances write the same rows.
 */
import type { SqlClient } from '../db/client.ts';

/** One row's increments. `bucket` is the start of its UTC hour. */
export interface BucketIncrement {
  orgId: string;
  clientId: string;
  endpoint: string;
  bucket: Date;
  requests: number;
  errors: number;
}

// One statement per batch: arrays in, one row per element out. Sorted input (see below) means two
// instances flushing the same rows lock them in the same order and cannot deadlock.
const ADD_SQL = `
INSERT INTO usage_buckets AS usage (org_id, client_id, bucket, endpoint, request_count, error_count)
SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::bigint[], $6::bigint[])
ON CONFLICT (org_id, client_id, bucket, endpoint) DO UPDATE
SET request_count = usage.request_count + excluded.request_count,
    error_count = usage.error_count + excluded.error_count`;

export function compareIncrements(a: BucketIncrement, b: BucketIncrement): number {
  return (
    compareText(a.orgId, b.orgId) ||
    compareText(a.clientId, b.clientId) ||
    a.bucket.getTime() - b.bucket.getTime() ||
    compareText(a.endpoint, b.endpoint)
  );
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Adds one batch (already sorted) in a single statement. */
export async function addToBuckets(sql: Pick<SqlClient, 'query'>, rows: readonly BucketIncrement[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(ADD_SQL, [
    rows.map((row) => row.orgId),
    rows.map((row) => row.clientId),
    rows.map((row) => row.bucket.toISOString()),
    rows.map((row) => row.endpoint),
    rows.map((row) => row.requests),
    rows.map((row) => row.errors),
  ]);
}
