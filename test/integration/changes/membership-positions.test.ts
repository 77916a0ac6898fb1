/**
 * Who hears a membership event, exactly, with webhooks created after the data was loaded, as users
 * create them: an ecosystem's filter edit is heard by the webhooks created before the edit and by no
 * webhook created after it, also when no data commit came since (the feed's head did not move); a
 * new ecosystem's members start at its creation, so an import committed right after it is reported;
 * an import committed before the ecosystem's deletion is reported, though the follower ran after it.
 * Real receivers, real signed deliveries (the deliverer runs in the app); the membership follower's
 * passes are run by the test, so what lies between a commit and a pass is chosen, not raced.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { runPass } from '../../../src/changes/follower.ts';
import { enqueueMembershipEvents, membershipFollower } from '../../../src/changes/membership.ts';
import { importDirectory } from '../../../src/data/import/index.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';
import { createWebhook, DELIVERY_ENV, startReceiver, type Receiver } from '../webhooks/support.ts';

let app: TestApp;
let auth: TestCredentials;
let dir: string;
const receivers: Receiver[] = [];
const follower = membershipFollower({ logger: createLogger({ level: 'silent' }), onChange: enqueueMembershipEvents });
const MEMBERSHIP_EVENTS = ['ecosystem.entity_entered', 'ecosystem.entity_left'];

beforeAll(async () => {
  // BACKGROUND_WORKERS stays off: the test runs the passes; the deliverer runs in every app.
  app = await startTestApp({ env: DELIVERY_ENV });
  await seedDatabase(app.db, { entities: 1_500, seed: 21 });
  auth = await createApiKeyAndToken(app);
  dir = await mkdtemp(join(tmpdir(), 'membership-positions-'));
  // As in service: the follower has caught up with the data before anyone subscribes.
  await follow();
}, 180_000);

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function follow(): Promise<void> {
  while ((await runPass(app.db.sql, follower, 1_000)).full);
}

/** A webhook hearing membership events, with its own receiver. */
async function listener(): Promise<{ receiver: Receiver; secret: string; id: number }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const { id, secret } = await createWebhook(auth, { url: receiver.url, events: MEMBERSHIP_EVENTS });
  return { receiver, secret, id };
}

/** What a receiver got, each verified with its webhook's secret as a receiver would, in a stable order. */
function heard({ receiver, secret }: { receiver: Receiver; secret: string }): string[] {
  return receiver.received
    .map((request) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; data: { ecosystem_id: number; entity_id: number } })
    .map((event) => `${event.type} ${event.data.ecosystem_id}/${event.data.entity_id}`)
    .sort();
}

const deliveriesOf = async (webhookId: number) =>
  (await app.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]))[0]!.n;

/** Ids the list endpoint finds for a filter: the expectation, read another way than the follower's. */
async function matching(filter: string): Promise<number[]> {
  const response = await call(auth, 'GET', `/api/entities?filter=${encodeURIComponent(filter)}&limit=100&fields=id`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.data as { id: number }[]).map((entity) => entity.id);
}

/** Two name prefixes each a few entities start with. */
async function twoPrefixes(): Promise<[string, string]> {
  const rows = await app.db.sql.query<{ prefix: string }>(
    `SELECT left(name, 4) AS prefix FROM entities WHERE deleted_at IS NULL AND name ~ '^[A-Za-z]{4}'
      GROUP BY 1 HAVING count(*) BETWEEN 2 AND 6 ORDER BY 1 LIMIT 2`,
  );
  expect(rows).toHaveLength(2);
  return [rows[0]!.prefix, rows[1]!.prefix];
}

async function createEcosystem(slug: string, filter: string): Promise<number> {
  const created = await call(auth, 'POST', '/api/ecosystems', { slug, name: slug, filter });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id as number;
}

async function importEntities(records: object[]): Promise<void> {
  await writeFile(join(dir, 'entities.jsonl'), records.map((record) => JSON.stringify(record)).join('\n'));
  await importDirectory(app.db, dir);
}

it('a filter edit is heard by the webhooks created before it, with no data commit since, and by none created after it', async () => {
  const [from, to] = await twoPrefixes();
  const before = await listener();
  const ecosystem = await createEcosystem('edited', `name[starts_with]:${from}`);
  // At once: no pass of the follower between the creation and the edit.
  const patched = await call(auth, 'PATCH', `/api/ecosystems/${ecosystem}`, { filter: `name[starts_with]:${to}` });
  expect(patched.status).toBe(200);
  const after = await listener();
  await follow();

  const left = await matching(`name[starts_with]:${from}`);
  const entered = await matching(`name[starts_with]:${to}`);
  const expected = [
    ...left.map((id) => `ecosystem.entity_left ${ecosystem}/${id}`),
    ...entered.map((id) => `ecosystem.entity_entered ${ecosystem}/${id}`),
  ].sort();
  expect(left.length + entered.length).toBeGreaterThan(3);
  await before.receiver.waitFor(expected.length);
  expect(heard(before)).toEqual(expected);
  // The one created after the edit: nothing stored for it, nothing sent.
  expect(await deliveriesOf(after.id)).toBe(0);
  expect(after.receiver.received).toEqual([]);
});

it("a new ecosystem's members start at its creation: an import committed before the follower's next pass is reported", async () => {
  const ecosystem = await createEcosystem('fresh', 'name[starts_with]:Zyxwv');
  const before = await listener();
  await importEntities([{ id: 960_001, type: 'company', name: 'Zyxwv Robotics' }]);
  const after = await listener();
  await follow();
  await before.receiver.waitFor(1);
  expect(heard(before)).toEqual([`ecosystem.entity_entered ${ecosystem}/960001`]);
  expect(await deliveriesOf(after.id)).toBe(0);
});

it("what an import did to an ecosystem before its deletion is reported, though the follower's pass came after both", async () => {
  const ecosystem = await createEcosystem('closing', 'name[starts_with]:Qwxyz');
  const before = await listener();
  await importEntities([{ id: 960_002, type: 'company', name: 'Qwxyz Labs' }]);
  expect((await call(auth, 'DELETE', `/api/ecosystems/${ecosystem}`)).status).toBe(204);
  await follow();
  await before.receiver.waitFor(1);
  expect(heard(before)).toEqual([`ecosystem.entity_entered ${ecosystem}/960002`]);
  const [members] = await app.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM ecosystem_members WHERE ecosystem_id = $1', [ecosystem]);
  expect(members!.n).toBe(0);
});
