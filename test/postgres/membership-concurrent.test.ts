/**
 * Ecosystem membership under concurrency, on PostgreSQL: edits of an ecosystem's filter, imports that
 * move a company in and out of it and the membership passes of two instances, all committing at once,
 * round after round. A webhook created before them hears a sequence of events that, applied to the
 * members it started with, alternates for every entity (nothing twice) and ends at the members the
 * final filter matches (nothing lost). And a pass whose snapshot went stale for a row it writes
 * (a webhook updated meanwhile) is refused whole and made again by the next pass: its events once.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPass } from '../../src/changes/follower.ts';
import { enqueueMembershipEvents, membershipFollower } from '../../src/changes/membership.ts';
import { importDirectory } from '../../src/data/import/index.ts';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { createLogger } from '../../src/logger.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { call } from '../integration/management/support.ts';
import { createWebhook } from '../integration/webhooks/support.ts';

let app: TestApp;
let auth: TestCredentials;
let dir: string;
const follower = membershipFollower({ logger: createLogger({ level: 'silent' }), onChange: enqueueMembershipEvents });
const COMPANY = 970_001;
const ROUNDS = 12;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 300, seed: 5 });
  auth = await createApiKeyAndToken(app);
  dir = await mkdtemp(join(tmpdir(), 'membership-concurrent-'));
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function follow(): Promise<void> {
  while ((await runPass(app.db.sql, follower, 1_000)).full);
}

const members = async (ecosystem: number): Promise<Set<number>> =>
  new Set((await app.db.sql.query<{ entity_id: number }>('SELECT entity_id FROM ecosystem_members WHERE ecosystem_id = $1', [ecosystem])).map((row) => row.entity_id));

async function moveCompany(city: string, round: number): Promise<void> {
  const file = join(dir, `round-${round}`);
  await mkdir(file, { recursive: true });
  await writeFile(join(file, 'entities.jsonl'), `${JSON.stringify({ id: COMPANY, type: 'company', name: 'Racing Robotics', hq_city: city })}\n`);
  await importDirectory(app.db, file);
}

it('edits, imports and two instances at once: every change of membership heard once, none lost', async () => {
  const cities = (
    await app.db.sql.query<{ hq_city: string }>(
      `SELECT hq_city FROM entities WHERE hq_city <> '' AND deleted_at IS NULL GROUP BY hq_city ORDER BY count(*) DESC, hq_city LIMIT 2`,
    )
  ).map((row) => row.hq_city);
  const narrow = `hq_city:"${cities[0]}"`;
  const wide = `or(hq_city:"${cities[0]}",hq_city:"${cities[1]}")`;
  const created = await call(auth, 'POST', '/api/ecosystems', { slug: 'racing', name: 'Racing', filter: narrow });
  expect(created.status).toBe(201);
  const ecosystem = created.body.data.id as number;
  await follow();
  const { id: webhook } = await createWebhook(auth, { url: 'https://hooks.example.invalid/', events: ['ecosystem.entity_entered', 'ecosystem.entity_left'] });
  const start = await members(ecosystem);

  let filter = narrow;
  for (let round = 0; round < ROUNDS; round += 1) {
    filter = round % 2 === 0 ? wide : narrow;
    const patched = call(auth, 'PATCH', `/api/ecosystems/${ecosystem}`, { filter });
    await Promise.all([patched, moveCompany([cities[0]!, cities[1]!, 'Nowhere-on-Sea'][round % 3]!, round), follow(), follow()]);
    expect((await patched).status).toBe(200);
  }
  await follow();

  const events = await app.db.sql.query<{ type: string; entity_id: number }>(
    `SELECT e.type, (e.data ->> 'entity_id')::int AS entity_id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.webhook_id = $1 ORDER BY d.id`,
    [webhook],
  );
  expect(events.length).toBeGreaterThan(ROUNDS);
  const replayed = new Set(start);
  for (const event of events) {
    const entering = event.type === 'ecosystem.entity_entered';
    // An entity enters only from outside and leaves only from inside: a repeat would break this.
    expect(replayed.has(event.entity_id), `${event.type} ${event.entity_id}`).toBe(!entering);
    if (entering) replayed.add(event.entity_id);
    else replayed.delete(event.entity_id);
  }
  const response = await call(auth, 'GET', `/api/entities?filter=${encodeURIComponent(filter)}&limit=100&fields=id`);
  const expected = (response.body.data as { id: number }[]).map((entity) => entity.id).sort((a, b) => a - b);
  expect([...(await members(ecosystem))].sort((a, b) => a - b)).toEqual(expected);
  expect([...replayed].sort((a, b) => a - b)).toEqual(expected);
}, 300_000);

it('a pass refused for a stale snapshot (a webhook updated meanwhile) reports nothing; the next reports its events once', async () => {
  const created = await call(auth, 'POST', '/api/ecosystems', { slug: 'stale', name: 'Stale', filter: 'name[starts_with]:Stalesnap' });
  expect(created.status).toBe(201);
  const ecosystem = created.body.data.id as number;
  const { id: webhook } = await createWebhook(auth, { url: 'https://hooks.example.invalid/', events: ['ecosystem.entity_entered'] });
  await follow();
  await moveCompany('Anywhere', 100);
  await app.db.sql.query(`UPDATE entities SET name = 'Stalesnap Robotics' WHERE id = $1`, [COMPANY]);
  // Another session updates the webhook as PATCH does (its row locked FOR UPDATE) and commits while
  // the pass waits on that row to store the delivery: the pass's snapshot is then older than the row.
  const other = new pg.Client({ connectionString: app.db.connection.url });
  await other.connect();
  try {
    await other.query(`SET search_path TO "${app.db.connection.schema}"`);
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM webhooks WHERE id = $1 FOR UPDATE', [webhook]);
    await other.query(`UPDATE webhooks SET description = 'renamed' WHERE id = $1`, [webhook]);
    const pass = runPass(app.db.sql, follower, 1_000);
    const waiting = async () =>
      (await other.query('SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))')).rowCount! > 0;
    for (const deadline = Date.now() + 20_000; !(await waiting()); ) {
      if (Date.now() > deadline) throw new Error('the pass never waited on the webhook');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await other.query('COMMIT');
    expect(await pass).toMatchObject({ ran: false, emitted: {} });
  } finally {
    await other.end();
  }
  expect(await runPass(app.db.sql, follower, 1_000)).toMatchObject({ ran: true, emitted: { 'ecosystem.entity_entered': 1 } });
  const [deliveries] = await app.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhook]);
  expect(deliveries!.n).toBe(1);
  expect([...(await members(ecosystem))]).toEqual([COMPANY]);
}, 120_000);
