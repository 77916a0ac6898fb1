// Ten slow requests their clients abandon must not take the pool with them: while they are stuck
// (behind a lock another session holds), /readyz and /oauth/token keep answering, and once the
// statement timeout has cancelled them the API serves again, with the pool intact.
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { startTestAppOnPool, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, createTestApiKey, postTokenRequest, type TestCredentials } from '../helpers/auth.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../helpers/db.ts';
import { isCancelledOnRequest } from '../../src/db/unavailable.ts';

const POOL_SIZE = 3;
const STATEMENT_TIMEOUT_MS = 1_000;

let direct: TestDatabase;
let app: TestApp;
let auth: TestCredentials;
let key: { client_id: string; client_secret: string };

beforeAll(async () => {
  direct = await createTestDatabase();
  app = await startTestAppOnPool(direct, {
    url: direct.connection.url!,
    poolSize: POOL_SIZE,
    connectTimeoutMs: 2_000,
    statementTimeoutMs: STATEMENT_TIMEOUT_MS,
  });
  auth = await createApiKeyAndToken(app);
  key = await createTestApiKey(app, { permissions: ['read:entities'] });
});

afterAll(async () => {
  await app.close();
  await direct.destroy();
});

const tokenRequest = () => postTokenRequest(app, key);

it('ten abandoned slow requests do not exhaust the pool: readiness and tokens keep answering', async () => {
  expect((await auth.fetch('/api/entities?limit=1')).status).toBe(200);
  // Another session holds the entities table, so every list query waits on the lock: a slow request.
  const locker = new pg.Client({ connectionString: direct.connection.url, options: `-c search_path="${direct.connection.schema}"` });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE entities IN ACCESS EXCLUSIVE MODE');
  try {
    const abandoned = Array.from({ length: 10 }, async () => {
      const controller = new AbortController();
      const pending = auth.fetch('/api/entities?limit=1', { signal: controller.signal }).catch((error: unknown) => error);
      setTimeout(() => controller.abort(), 200);
      return pending;
    });
    const outcomes = await Promise.all(abandoned);
    expect(outcomes.every((outcome) => outcome instanceof Error)).toBe(true);

    // The stuck statements end at the statement timeout; within a few of them the pool is free again.
    await expect.poll(async () => (await app.fetch('/readyz')).status, { timeout: 15_000, interval: 250 }).toBe(200);
    expect((await tokenRequest()).status).toBe(200);
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
  expect((await auth.fetch('/api/entities?limit=1')).status).toBe(200);
  expect((await app.fetch('/readyz')).status).toBe(200);
});

it('cancels a compiled read whose client left, long before the statement timeout', async () => {
  const patient = await startTestAppOnPool(direct, { url: direct.connection.url!, poolSize: POOL_SIZE, statementTimeoutMs: 60_000 });
  const client = await createApiKeyAndToken(patient);
  const observer = new pg.Client({ connectionString: direct.connection.url });
  await observer.connect();
  // Compiled list statements waiting on a lock (pg_stat_activity shows a statement's first 1 KiB) on
  // this file's entities: other test files may run on the same server meanwhile.
  const waiting = async () =>
    (
      await observer.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT (SELECT row_to_json(o) FROM (SELECT r."id" AS "id", r."uuid" AS "uuid"%'
           AND pid IN (SELECT pid FROM pg_locks WHERE NOT granted AND relation = $1::regclass)`,
        [`"${direct.connection.schema}".entities`],
      )
    ).rows[0]!.n;
  const locker = new pg.Client({ connectionString: direct.connection.url, options: `-c search_path="${direct.connection.schema}"` });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE entities IN ACCESS EXCLUSIVE MODE');
  try {
    const controller = new AbortController();
    const pending = client.fetch('/api/entities?limit=1', { signal: controller.signal }).catch((error: unknown) => error);
    await expect.poll(waiting, { timeout: 5_000, interval: 50 }).toBe(1);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    // Cancelled within moments, where before it waited out the 60 s statement timeout holding a connection.
    await expect.poll(waiting, { timeout: 3_000, interval: 50 }).toBe(0);
    // Logged as what it is, not as an outage.
    await expect.poll(() => patient.logs.join(''), { timeout: 3_000, interval: 50 }).toContain('statement cancelled on request');
    expect(patient.logs.join('')).not.toContain('database unavailable');
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
    await observer.end();
    await patient.close();
  }
  expect((await auth.fetch('/api/entities?limit=1')).status).toBe(200);
});

it('a session a cancel was sent to is not lent again: a late cancel cannot stop the next statement', async () => {
  const { openDatabase } = await import('../../src/db/client.ts');
  const db = await openDatabase({ url: testPostgresUrl(), poolSize: 1 });
  try {
    const pidOf = async () => (await db.sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
    const before = await pidOf();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // The client leaves while the read runs on the pool's one session; the cancel goes to that session.
    await db.sql.prepared('SELECT pg_sleep(0.5)', [], controller.signal).catch(() => undefined);
    // Whatever runs next runs on a session of its own, out of reach of a cancel still on its way.
    expect(await pidOf()).not.toBe(before);
  } finally {
    await db.close();
  }
});

it('a read whose client left while it waited for a connection is never sent', async () => {
  const { openDatabase } = await import('../../src/db/client.ts');
  const db = await openDatabase({ url: direct.connection.url!, schema: direct.connection.schema, poolSize: 1 });
  try {
    await db.sql.exec('CREATE SEQUENCE IF NOT EXISTS abandoned_probe');
    // The pool's one session is busy; the second read queues for it, and its client leaves meanwhile.
    const busy = db.sql.prepared('SELECT pg_sleep(0.5)', []);
    const controller = new AbortController();
    const queued = db.sql.prepared("SELECT nextval('abandoned_probe')", [], controller.signal).catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 100);
    await busy;
    const outcome = await queued;
    expect(outcome).toBeInstanceOf(Error);
    expect(isCancelledOnRequest(outcome)).toBe(true);
    // Had it been sent, the sequence would have moved; and the session it would have used serves on.
    expect((await db.sql.query<{ is_called: boolean }>('SELECT is_called FROM abandoned_probe'))[0]!.is_called).toBe(false);
  } finally {
    await db.close();
  }
});
