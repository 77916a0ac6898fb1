// The in-memory counter against a real database: hourly keys, additive flushes, nothing lost or
// doubled when a flush fails (kept and retried) or when flushes overlap.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { createUsageCounter } from '../../../src/usage/counter.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
const logger = createLogger({ level: 'silent' });
const client = { orgId: 'org-a', clientId: 'client-a' };

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.destroy();
});

interface Row {
  org_id: string;
  client_id: string;
  bucket: Date;
  endpoint: string;
  request_count: string | number | bigint;
  error_count: string | number | bigint;
}

async function rows(clientId: string): Promise<[string, string, number, number][]> {
  const found = await db.sql.query<Row>(
    `SELECT org_id, client_id, bucket, endpoint, request_count, error_count FROM usage_buckets
      WHERE client_id = $1 ORDER BY bucket, endpoint COLLATE "C"`,
    [clientId],
  );
  return found.map((row) => [new Date(row.bucket).toISOString(), row.endpoint, Number(row.request_count), Number(row.error_count)]);
}

it('adds requests per hour and endpoint, errors from status 400 on, and adds again on the next flush', async () => {
  const counter = createUsageCounter({ sql: db.sql, logger, flushIntervalMs: 4_000 });
  const at = (time: string) => Date.parse(time);
  counter.record(client, 'GET /api/entities', 200, at('2026-05-01T10:00:00Z'));
  counter.record(client, 'GET /api/entities', 404, at('2026-05-01T10:59:59.999Z'));
  counter.record(client, 'GET /api/entities', 399, at('2026-05-01T11:00:00Z'));
  counter.record(client, 'POST /graphql', 500, at('2026-05-01T10:30:00Z'));
  counter.record({ orgId: 'org-b', clientId: 'client-a' }, 'POST /graphql', 200, at('2026-05-01T10:30:00Z'));
  await counter.flush();
  counter.record(client, 'GET /api/entities', 200, at('2026-05-01T10:15:00Z'));
  await counter.close();
  expect(await rows('client-a')).toEqual([
    ['2026-05-01T10:00:00.000Z', 'GET /api/entities', 3, 1],
    ['2026-05-01T10:00:00.000Z', 'POST /graphql', 1, 1],
    ['2026-05-01T10:00:00.000Z', 'POST /graphql', 1, 0],
    ['2026-05-01T11:00:00.000Z', 'GET /api/entities', 1, 0],
  ]);
});

it('keeps the counts of a failed flush and writes them once with the next one', async () => {
  const counter = createUsageCounter({ sql: db.sql, logger, flushIntervalMs: 4_000, batchSize: 2 });
  const when = Date.parse('2026-05-02T08:00:00Z');
  const other = { orgId: 'org-a', clientId: 'client-retry' };
  for (const endpoint of ['GET /a', 'GET /b', 'GET /c']) counter.record(other, endpoint, 200, when);
  await db.sql.exec('ALTER TABLE usage_buckets RENAME TO usage_buckets_away');
  try {
    await expect(counter.flush()).rejects.toThrow();
  } finally {
    await db.sql.exec('ALTER TABLE usage_buckets_away RENAME TO usage_buckets');
  }
  counter.record(other, 'GET /a', 503, when);
  await counter.close();
  expect(await rows('client-retry')).toEqual([
    ['2026-05-02T08:00:00.000Z', 'GET /a', 2, 1],
    ['2026-05-02T08:00:00.000Z', 'GET /b', 1, 0],
    ['2026-05-02T08:00:00.000Z', 'GET /c', 1, 0],
  ]);
});

it('writes everything exactly once when flushes overlap with counting', async () => {
  const counter = createUsageCounter({ sql: db.sql, logger, flushIntervalMs: 50, batchSize: 3 });
  const other = { orgId: 'org-a', clientId: 'client-busy' };
  const flushes: Promise<void>[] = [];
  for (let i = 0; i < 400; i += 1) {
    counter.record(other, `GET /e${i % 7}`, i % 4 === 0 ? 400 : 200, Date.parse('2026-05-03T00:00:00Z') + (i % 2) * 3_600_000);
    if (i % 50 === 0) flushes.push(counter.flush());
    if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 60));
  }
  await Promise.all(flushes);
  await counter.close();
  const written = await rows('client-busy');
  expect(written).toHaveLength(14);
  expect(written.reduce((sum, row) => sum + row[2], 0)).toBe(400);
  expect(written.reduce((sum, row) => sum + row[3], 0)).toBe(100);
});
