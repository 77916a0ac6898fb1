// Read replicas on real streaming replication (test/helpers/replication.ts): a primary and a standby
// made by initdb and pg_basebackup -R, 3,000 seeded entities. Where each read ran is proven from the
// servers' own statistics (pg_stat_user_tables on the data tables; a server's pending counts are flushed
// when its sessions end, so the app is closed before they are read) and from database_reads_total.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { startReplication, type Replication } from '../helpers/replication.ts';

const ENTITIES = 3_000;
// Trust authentication ignores it; it stands for a real deployment's password, which must not leak.
const PASSWORD = 'replica-secret-pw';

let replication: Replication;
let replicaUrl: string;

beforeAll(async () => {
  replication = await startReplication();
  replicaUrl = replication.replicaUrl.replace('postgres@', `postgres:${PASSWORD}@`);
  const db = await openDatabase({ url: replication.primaryUrl, poolSize: 4 });
  try {
    await migrate(db.sql);
    await seedDatabase(db, { entities: ENTITIES });
  } finally {
    await db.close();
  }
  await replication.caughtUp();
}, 300_000);

afterAll(async () => {
  await replication?.close();
});

interface Replicated {
  app: TestApp;
  reader: TestCredentials;
}

/** The app on the primary, with the replica unless `replicas` is false. */
async function startApp(options: { replicas?: boolean; env?: Record<string, string>; maxLagMs?: number } = {}): Promise<Replicated> {
  const opened = await openDatabase({
    url: replication.primaryUrl,
    poolSize: 8,
    ...(options.replicas === false ? {} : { replicas: { urls: [replicaUrl], maxLagMs: options.maxLagMs ?? 60_000, checkIntervalMs: 100 } }),
  });
  const db: TestDatabase = { ...opened, connection: { url: replication.primaryUrl }, destroy: () => opened.close() };
  const app = await startTestApp({ db, env: options.env });
  const close = async () => {
    await app.close();
    await opened.close();
  };
  const reader = await createApiKeyAndToken({ ...app, close });
  return { app: { ...app, close }, reader };
}

/** Table scans (sequential and by index) of the data tables on one server, as its statistics count them. */
async function dataScans(on: 'primary' | 'replica'): Promise<number> {
  const sql = `SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0)::int AS n FROM pg_stat_user_tables
    WHERE relname IN ('entities', 'founders', 'investors', 'transactions', 'valuations', 'news', 'founder_companies', 'entity_tags', 'tags')`;
  const [row] = on === 'primary' ? await replication.onPrimary<{ n: number }>(sql) : await replication.onReplica<{ n: number }>(sql);
  return row!.n;
}

/** The replica's state as /readyz reports it. */
async function replicaState(app: TestApp): Promise<string> {
  return (await (await app.fetch('/readyz')).json()).replicas[0].state;
}

/** A counter's value from /metrics, by its labels. */
async function metric(app: TestApp, name: string, labels: string): Promise<number> {
  const text = await (await app.fetch('/metrics')).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const LIST_PATHS = [
  '/api/entities?limit=50&sort=name',
  '/api/entities?filter=hq_country:Germany&include_total=true&limit=20',
  '/api/investors?limit=25',
  '/api/founders?limit=25',
  '/api/transactions?limit=25&include_total=true',
  '/api/entities/42',
  '/api/aggregate/entities?metric=count&group_by=hq_country&limit=10',
];
const GRAPHQL_LIST = '{ entities(limit: 30, sort: "name") { data { id name founders { name } } } }';

/** Every read's status and body, one after another. */
async function readAll(reader: TestCredentials): Promise<string[]> {
  const bodies: string[] = [];
  for (const path of LIST_PATHS) {
    const response = await reader.fetch(path);
    expect(response.status, path).toBe(200);
    bodies.push(await response.text());
  }
  const graphql = await reader.graphql(GRAPHQL_LIST);
  expect(graphql.status).toBe(200);
  expect(graphql.body.errors).toBeUndefined();
  bodies.push(JSON.stringify(graphql.body));
  return bodies;
}

let expected: string[];

it('answers every read from the primary alone first (the bodies the replicated runs must equal)', async () => {
  const { app, reader } = await startApp({ replicas: false });
  try {
    expected = await readAll(reader);
    expect(JSON.parse(expected[0]!).data).toHaveLength(50);
  } finally {
    await app.close();
  }
});

for (const compiled of [true, false]) {
  it(`runs list, record and aggregate reads on the replica, not the primary (${compiled ? 'compiled reads' : 'Prisma through the resolvers'})`, async () => {
    const { app, reader } = await startApp({ env: { COMPILED_READS: String(compiled) } });
    const before = { primary: await dataScans('primary'), replica: await dataScans('replica') };
    let served: number;
    try {
      for (let round = 0; round < 3; round += 1) expect(await readAll(reader)).toEqual(expected);
      served = await metric(app, 'database_reads_total', 'target="replica",reason="data_read"');
      expect(await metric(app, 'database_reads_total', 'target="primary",reason="no_ready_replica"')).toBe(0);
    } finally {
      await app.close();
    }
    expect(served).toBeGreaterThanOrEqual(3 * (LIST_PATHS.length + 1));
    const after = { primary: await dataScans('primary'), replica: await dataScans('replica') };
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(3 * (LIST_PATHS.length + 1));
    expect(after.primary - before.primary).toBe(0);
  });
}

it("reads an aggregate's CSV export (one statement behind a cursor) on the replica, not the primary", async () => {
  const { app, reader } = await startApp();
  const before = { primary: await dataScans('primary'), replica: await dataScans('replica') };
  try {
    const response = await reader.fetch('/api/aggregate/entities?metric=count&group_by=hq_country&limit=1&format=csv');
    expect(response.status).toBe(200);
    const lines = (await response.text()).trim().split('\n');
    const page = JSON.parse(expected[LIST_PATHS.indexOf('/api/aggregate/entities?metric=count&group_by=hq_country&limit=10')]!) as { page: { total: number } };
    expect(lines[0]).toBe('hq_country,count');
    expect(lines.length - 1).toBe(page.page.total);
  } finally {
    await app.close();
  }
  const after = { primary: await dataScans('primary'), replica: await dataScans('replica') };
  expect(after.replica).toBeGreaterThan(before.replica);
  expect(after.primary - before.primary).toBe(0);
});

it('writes on the primary; management reads go to the primary; /readyz and /metrics show the replica without its password', async () => {
  const { app, reader } = await startApp();
  try {
    const created = await reader.fetch('/api/ecosystems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'replica-write', name: 'Written', filter: 'hq_country:Germany' }),
    });
    expect(created.status).toBe(201);
    expect(await replication.onPrimary(`SELECT 1 FROM ecosystems WHERE slug = 'replica-write'`)).toHaveLength(1);
    expect((await reader.fetch('/api/ecosystems/replica-write')).status).toBe(200);
    expect(await metric(app, 'database_reads_total', 'target="primary",reason="primary_only"')).toBeGreaterThanOrEqual(2);

    const ready = await app.fetch('/readyz');
    const readyText = await ready.text();
    expect(ready.status).toBe(200);
    expect(JSON.parse(readyText)).toMatchObject({ status: 'ready', replicas: [{ name: 'replica-1', state: 'ready', lag_ms: expect.any(Number) }] });
    const metrics = await (await app.fetch('/metrics')).text();
    expect(metrics).toMatch(/database_replica_up\{replica="replica-1",host="127\.0\.0\.1:\d+\/postgres",state="ready"\} 1/);
    expect(metrics).toMatch(/database_replica_lag_seconds\{replica="replica-1"/);
    for (const text of [readyText, metrics, app.logs.join('')]) expect(text).not.toContain(PASSWORD);
  } finally {
    await app.close();
  }
});

it("reads a principal's own write while the replica's replay is paused; others read the replica meanwhile", async () => {
  const { app, reader: writer } = await startApp();
  const other = await createApiKeyAndToken(app);
  await replication.pauseReplay();
  try {
    const created = await writer.fetch('/api/ecosystems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'read-your-writes', name: 'Germany', filter: 'hq_country:Germany' }),
    });
    expect(created.status).toBe(201);
    // The writer sees its ecosystem and its entities at once: from the primary.
    const own = await writer.fetch('/api/ecosystems/read-your-writes/entities?limit=500');
    expect(own.status).toBe(200);
    const ownEntities = (await own.json()).data as { hq_country?: string }[];
    expect(ownEntities.length).toBeGreaterThan(0);
    expect(await metric(app, 'database_reads_total', 'target="primary",reason="read_your_writes"')).toBeGreaterThanOrEqual(1);
    expect(await metric(app, 'database_reads_total', 'target="replica",reason="data_read"')).toBe(0);
    // Another principal reads the replica, which has not replayed the write yet.
    expect((await other.fetch('/api/ecosystems/read-your-writes/entities?limit=500')).status).toBe(404);
    expect((await other.fetch('/api/entities?limit=5')).status).toBe(200);
    expect(await metric(app, 'database_reads_total', 'target="replica",reason="data_read"')).toBeGreaterThanOrEqual(2);
  } finally {
    await replication.resumeReplay();
  }
  try {
    await replication.caughtUp();
    const servedBefore = await metric(app, 'database_reads_total', 'target="replica",reason="data_read"');
    // Once a check has seen the replica past the write, the writer's reads go back to it.
    await expect.poll(async () => {
      const response = await writer.fetch('/api/ecosystems/read-your-writes/entities?limit=500');
      expect(response.status).toBe(200);
      return metric(app, 'database_reads_total', 'target="replica",reason="data_read"');
    }, { timeout: 10_000 }).toBeGreaterThan(servedBefore);
    expect((await other.fetch('/api/ecosystems/read-your-writes/entities?limit=500')).status).toBe(200);
  } finally {
    await app.close();
  }
});

it('skips a replica lagging more than DATABASE_REPLICA_MAX_LAG_MS, and uses it again once it catches up', async () => {
  const { app, reader } = await startApp({ maxLagMs: 300 });
  await replication.pauseReplay();
  // Lag is how long ago the primary wrote what the replica has not replayed: keep writing while replay
  // is paused, or a quiet primary (nothing new to replay) lets the replica read as caught up again.
  const writing = setInterval(() => void replication.onPrimary('INSERT INTO replication_marker VALUES (now())').catch(() => undefined), 50);
  let replicaStatus: unknown;
  try {
    // A round of reads made while the replica reads as lagging all go to the primary. (Its lag is
    // sampled every check, so it can read as caught up for a moment after a quiet spell: retried.)
    const reads = () => Promise.all([
      metric(app, 'database_reads_total', 'target="primary",reason="no_ready_replica"'),
      metric(app, 'database_reads_total', 'target="replica",reason="data_read"'),
    ]);
    await expect.poll(async () => {
      if (await replicaState(app) !== 'lagging') return 'not lagging';
      replicaStatus = (await (await app.fetch('/readyz')).json()).replicas[0];
      const [primaryBefore, replicaBefore] = await reads();
      expect(await readAll(reader)).toEqual(expected);
      const [primaryAfter, replicaAfter] = await reads();
      if (await replicaState(app) !== 'lagging') return 'not lagging throughout';
      return { primaryServedAll: primaryAfter - primaryBefore >= LIST_PATHS.length + 1, replica: replicaAfter - replicaBefore };
    }, { timeout: 20_000 }).toEqual({ primaryServedAll: true, replica: 0 });
    expect(await (await app.fetch('/metrics')).text()).toMatch(/database_replica_up\{replica="replica-1",host="[^"]+",state="lagging"\} 0/);
  } finally {
    clearInterval(writing);
    await replication.resumeReplay();
  }
  try {
    expect((replicaStatus as { lag_ms: number }).lag_ms).toBeGreaterThan(300);
    // A round of reads made while the replica reads as ready all go to it. (On a loaded machine a 300 ms
    // bound can be crossed again for a moment by the app's own writes, usage among them: retried.)
    await expect.poll(async () => {
      if (await replicaState(app) !== 'ready') return 'not ready';
      const before = await metric(app, 'database_reads_total', 'target="replica",reason="data_read"');
      expect(await readAll(reader)).toEqual(expected);
      const after = await metric(app, 'database_reads_total', 'target="replica",reason="data_read"');
      if (await replicaState(app) !== 'ready') return 'not ready throughout';
      return after - before;
    }, { timeout: 20_000 }).toBeGreaterThanOrEqual(LIST_PATHS.length + 1);
  } finally {
    await app.close();
  }
});

it('loses no request when the replica stops in the middle of many concurrent reads', { timeout: 120_000 }, async () => {
  const { app, reader } = await startApp();
  const paths = [...LIST_PATHS.map((path, index) => ({ path, body: expected[index]! }))];
  const total = 700;
  const results: { status: number; same: boolean }[] = [];
  let next = 0;
  let stopped: Promise<void> | undefined;
  const worker = async () => {
    while (next < total) {
      const { path, body } = paths[next % paths.length]!;
      next += 1;
      // A fifth of the way in, the replica stops (a fast shutdown ends its sessions mid-statement).
      if (next === Math.floor(total / 5)) stopped = replication.stopReplica('fast');
      const response = await reader.fetch(path);
      results.push({ status: response.status, same: (await response.text()) === body });
    }
  };
  try {
    await Promise.all(Array.from({ length: 24 }, worker));
    await stopped;
    expect(results).toHaveLength(total);
    expect(results.filter((result) => result.status !== 200)).toEqual([]);
    expect(results.filter((result) => !result.same)).toEqual([]);
    // Statements the stop cut short were answered by the primary; reads ran on the replica before, on the primary after.
    expect(await metric(app, 'database_replica_fallbacks', 'replica="replica-1",host="127.0.0.1:' + new URL(replicaUrl).port + '/postgres"')).toBeGreaterThan(0);
    expect(await metric(app, 'database_reads_total', 'target="replica",reason="data_read"')).toBeGreaterThan(0);
    expect(await metric(app, 'database_reads_total', 'target="primary",reason="no_ready_replica"')).toBeGreaterThan(0);
    const ready = await app.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect((await ready.json()).replicas[0]).toMatchObject({ state: 'down', lag_ms: null });
  } finally {
    await app.close();
    await replication.startReplica();
  }
});
