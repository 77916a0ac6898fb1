// Shared by the usage tests: reading the series over REST until it shows what a test waits for.
import { expect } from 'vitest';
import type { TestCredentials } from '../../helpers/auth.ts';

export interface UsageRow {
  bucket: string;
  endpoint: string;
  request_count: number;
  error_count: number;
}

/** docs/usage.md: a read reflects requests within 5 seconds. */
export const VISIBLE_WITHIN_MS = 5_000;

/** GET /api/usage/timeseries?<query> until `done(rows)`, for at most VISIBLE_WITHIN_MS. */
export async function waitForSeries(reader: TestCredentials, query: string, done: (rows: UsageRow[]) => boolean): Promise<UsageRow[]> {
  const started = Date.now();
  for (;;) {
    const response = await reader.fetch(`/api/usage/timeseries?${query}`);
    const body = (await response.json()) as { data: UsageRow[] };
    expect(response.status, JSON.stringify(body)).toBe(200);
    if (done(body.data) || Date.now() - started > VISIBLE_WITHIN_MS) return body.data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** endpoint → summed requests and errors over every bucket (a test may straddle an hour). */
export function seriesTotals(rows: UsageRow[]): Map<string, { requests: number; errors: number }> {
  const totals = new Map<string, { requests: number; errors: number }>();
  for (const row of rows) {
    const total = totals.get(row.endpoint) ?? { requests: 0, errors: 0 };
    total.requests += row.request_count;
    total.errors += row.error_count;
    totals.set(row.endpoint, total);
  }
  return totals;
}
