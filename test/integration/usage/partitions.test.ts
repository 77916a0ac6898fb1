// usage_buckets by month: the migration keeps existing rows, each in its month's partition; the
// service creates this month and the next two, drops months past USAGE_RETENTION_DAYS, and keeps a
// count for a month without a partition in the default one until its month is created. Counting and
// the time series stay exact across a month boundary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../../src/db/migrate.ts';
import { addToBuckets, type BucketIncrement } from '../../../src/usage/store.ts';
import { maintainUsagePartitions } from '../../../src/usage/partitions.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, TEST_ORG } from '../../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { waitForSeries } from './support.ts';

const PARTITIONING = '20261125000000_usage_buckets_by_month';

const increment = (bucket: string, requests: number, clientId = 'partitioned-client'): BucketIncrement => ({
  orgId: TEST_ORG,
  clientId,
  endpoint: 'GET /api/entities',
  bucket: new Date(bucket),
  requests,
  errors: 0,
});

const partitions = async (db: TestDatabase): Promise<string[]> =>
  (
    await db.sql.query<{ name: string }>(
      `SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid
        WHERE pg_inherits.inhparent = 'usage_buckets'::regclass ORDER BY 1`,
    )
  ).map((row) => row.name);

/** Where each row of a client is stored, as partition and hour with its count. */
const placement = async (db: TestDatabase, clientId: string) =>
  db.sql.query<{ partition: string; bucket: string; request_count: number }>(
    `SELECT tableoid::regclass::text AS partition, to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS bucket, request_count::int AS request_count
       FROM usage_buckets WHERE client_id = $1 ORDER BY bucket`,
    [clientId],
  );

describe('the migration', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('keeps every existing row, each in the partition of its month', async () => {
    const all = await readMigrations();
    await migrate(db.sql, all.filter((migration) => migration.name < PARTITIONING));
    await addToBuckets(db.sql, [increment('2026-10-31T23:00:00Z', 5), increment('2026-11-01T00:00:00Z', 7), increment('2026-11-30T23:00:00Z', 2)]);

    expect(await migrate(db.sql, all)).toContain(PARTITIONING);
    const [parent] = await db.sql.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE oid = 'usage_buckets'::regclass`);
    expect(parent!.relkind).toBe('p');
    expect(await partitions(db)).toEqual(['usage_buckets_2026_10', 'usage_buckets_2026_11', 'usage_buckets_default']);
    expect(await placement(db, 'partitioned-client')).toEqual([
      { partition: 'usage_buckets_2026_10', bucket: '2026-10-31T23', request_count: 5 },
      { partition: 'usage_buckets_2026_11', bucket: '2026-11-01T00', request_count: 7 },
      { partition: 'usage_buckets_2026_11', bucket: '2026-11-30T23', request_count: 2 },
    ]);
    // The additive upsert still finds its row in a partition (the key holds the partition column).
    await addToBuckets(db.sql, [increment('2026-11-01T00:00:00Z', 3)]);
    expect((await placement(db, 'partitioned-client'))[1]!.request_count).toBe(10);
  });
});

describe('maintenance', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('creates this month and the next two, once', async () => {
    const now = new Date('2027-01-15T12:00:00Z');
    expect(await maintainUsagePartitions(db.sql, now, 0)).toEqual({
      created: ['usage_buckets_2027_01', 'usage_buckets_2027_02', 'usage_buckets_2027_03'],
      dropped: [],
    });
    expect(await maintainUsagePartitions(db.sql, now, 0)).toEqual({ created: [], dropped: [] });
  });

  it('keeps a count for a month without a partition, and moves it into place when that month is created', async () => {
    await addToBuckets(db.sql, [increment('2027-06-10T08:00:00Z', 4, 'early')]);
    await addToBuckets(db.sql, [increment('2027-06-10T08:00:00Z', 1, 'early')]);
    expect(await placement(db, 'early')).toEqual([{ partition: 'usage_buckets_default', bucket: '2027-06-10T08', request_count: 5 }]);

    // The month's partition is created when it is due, or at once because rows wait for it.
    expect((await maintainUsagePartitions(db.sql, new Date('2027-01-20T00:00:00Z'), 0)).created).toEqual(['usage_buckets_2027_06']);
    expect(await placement(db, 'early')).toEqual([{ partition: 'usage_buckets_2027_06', bucket: '2027-06-10T08', request_count: 5 }]);
    expect(await db.sql.query('SELECT 1 FROM usage_buckets_default')).toEqual([]);
    await addToBuckets(db.sql, [increment('2027-06-10T08:00:00Z', 2, 'early')]);
    expect((await placement(db, 'early'))[0]!.request_count).toBe(7);
  });

  it('drops the months entirely older than the retention, and only those; 0 keeps everything', async () => {
    await addToBuckets(db.sql, [increment('2027-01-31T23:00:00Z', 3, 'old'), increment('2027-02-01T00:00:00Z', 4, 'old')]);
    const now = new Date('2027-04-10T00:00:00Z');
    expect(await maintainUsagePartitions(db.sql, now, 0)).toEqual({ created: ['usage_buckets_2027_04', 'usage_buckets_2027_05'], dropped: [] });

    // 2027-04-10 less 60 days is 2027-02-09: January has ended before it, February has not.
    expect(await maintainUsagePartitions(db.sql, now, 60)).toEqual({ created: [], dropped: ['usage_buckets_2027_01'] });
    expect(await partitions(db)).toEqual([
      'usage_buckets_2027_02',
      'usage_buckets_2027_03',
      'usage_buckets_2027_04',
      'usage_buckets_2027_05',
      'usage_buckets_2027_06',
      'usage_buckets_default',
    ]);
    expect(await placement(db, 'old')).toEqual([{ partition: 'usage_buckets_2027_02', bucket: '2027-02-01T00', request_count: 4 }]);
  });
});

describe('counting across a month boundary', () => {
  let app: TestApp;
  let now = new Date('2026-10-31T23:59:00.000Z');
  beforeAll(async () => {
    app = await startTestApp({ clock: () => now });
  });
  afterAll(async () => {
    await app.close();
  });

  it('the service creates the months at start-up, and the counts are exact on both sides of midnight', async () => {
    await expect.poll(() => partitions(app.db)).toEqual(['usage_buckets_2026_10', 'usage_buckets_2026_11', 'usage_buckets_2026_12', 'usage_buckets_default']);
    const admin = await createApiKeyAndToken(app);
    const caller = await createApiKeyAndToken(app, { permissions: ['read:entities'] });

    await Promise.all(Array.from({ length: 5 }, () => caller.fetch('/api/entities?limit=1')));
    now = new Date('2026-11-01T00:00:30.000Z');
    await Promise.all(Array.from({ length: 7 }, () => caller.fetch('/api/entities?limit=1')));

    const query = `start_date=2026-10-31&end_date=2026-11-01&granularity=hourly&client_id=${caller.clientId}`;
    const rows = await waitForSeries(admin, query, (found) => found.reduce((sum, row) => sum + row.request_count, 0) >= 12);
    expect(rows).toEqual([
      { bucket: '2026-10-31T23:00:00.000Z', endpoint: 'GET /api/entities', request_count: 5, error_count: 0, rows_exported: 0 },
      { bucket: '2026-11-01T00:00:00.000Z', endpoint: 'GET /api/entities', request_count: 7, error_count: 0, rows_exported: 0 },
    ]);
    expect(await placement(app.db, caller.clientId)).toEqual([
      { partition: 'usage_buckets_2026_10', bucket: '2026-10-31T23', request_count: 5 },
      { partition: 'usage_buckets_2026_11', bucket: '2026-11-01T00', request_count: 7 },
    ]);
  });
});
