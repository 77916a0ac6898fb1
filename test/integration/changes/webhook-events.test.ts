/**
 * From a write to a signed webhook, end to end, with the background workers running as in service:
 * a company imported into the city an ecosystem filters on reaches a receiver on this machine as a
 * correctly signed `ecosystem.entity_entered` well within 60 s; moving it away is `entity_left`; an
 * edited filter sends exactly the differences; change events carry the change as the feed shows it;
 * nothing is sent twice except a retry, which carries the same webhook-id.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../../src/data/import/index.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';
import { createWebhook, DELIVERY_ENV, startReceiver, waitUntil, type Receiver } from '../webhooks/support.ts';

interface Delivered {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

let app: TestApp;
let auth: TestCredentials;
let dir: string;
let city: string;
let ecosystemId: number;
let members: Receiver;
let changes: Receiver;
let membersSecret: string;
let changesSecret: string;

const COMPANY = 950_001;

beforeAll(async () => {
  app = await startTestApp({ env: { ...DELIVERY_ENV, BACKGROUND_WORKERS: 'true', CHANGES_POLL_MS: '200' } });
  await seedDatabase(app.db, { entities: 1_500, seed: 21 });
  auth = await createApiKeyAndToken(app);
  dir = await mkdtemp(join(tmpdir(), 'webhook-events-'));
  const [row] = await app.db.sql.query<{ hq_city: string }>(
    `SELECT hq_city FROM entities WHERE hq_city <> '' AND deleted_at IS NULL GROUP BY hq_city ORDER BY count(*) DESC LIMIT 1`,
  );
  city = row!.hq_city;
  const created = await call(auth, 'POST', '/api/ecosystems', { slug: 'watched', name: 'Watched', filter: `hq_city:"${city}"` });
  expect(created.status).toBe(201);
  ecosystemId = created.body.data.id as number;
  // Its starting members are taken silently by the worker.
  await waitUntil(async () => (await app.db.sql.query('SELECT 1 FROM ecosystem_memberships WHERE ecosystem_id = $1', [ecosystemId])).length === 1, 30_000);
  members = await startReceiver('/members');
  changes = await startReceiver('/changes');
  membersSecret = (await createWebhook(auth, { url: members.url, events: ['ecosystem.entity_entered', 'ecosystem.entity_left'], ecosystem_ids: [ecosystemId] })).secret;
  changesSecret = (await createWebhook(auth, { url: changes.url, events: ['entity.created', 'entity.updated'] })).secret;
}, 180_000);

afterAll(async () => {
  await members?.close();
  await changes?.close();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function importEntities(records: object[]): Promise<void> {
  await writeFile(join(dir, 'entities.jsonl'), records.map((record) => JSON.stringify(record)).join('\n'));
  await importDirectory(app.db, dir);
}

/** Every request verified with the webhook's secret, as a receiver would. */
function verified(receiver: Receiver, secret: string, from = 0): Delivered[] {
  return receiver.received.slice(from).map((request) => {
    const body = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Omit<Delivered, 'id'>;
    return { id: request.headers['webhook-id'] as string, ...body };
  });
}

const company = { id: COMPANY, type: 'company', name: 'Arrival Robotics' };

describe('ecosystem events', () => {
  it('an imported company in the city arrives signed as entity_entered within seconds', async () => {
    const started = Date.now();
    await importEntities([{ ...company, hq_city: city }]);
    await members.waitFor(1, 60_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(verified(members, membersSecret)).toEqual([
      { id: expect.any(String), type: 'ecosystem.entity_entered', timestamp: expect.any(String), data: { ecosystem_id: ecosystemId, entity_id: COMPANY } },
    ]);
  });

  it('moving it to another city is entity_left', async () => {
    const before = members.received.length;
    await importEntities([{ ...company, hq_city: 'Elsewhere-on-Sea' }]);
    await members.waitFor(before + 1, 60_000);
    expect(verified(members, membersSecret, before).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'ecosystem.entity_left', data: { ecosystem_id: ecosystemId, entity_id: COMPANY } },
    ]);
  });

  it('an edited filter sends exactly the differences, each once, a retried one with the same webhook-id', async () => {
    const [other] = await app.db.sql.query<{ hq_city: string }>(
      `SELECT hq_city FROM entities WHERE hq_city NOT IN ('', $1) AND deleted_at IS NULL GROUP BY hq_city ORDER BY count(*) DESC LIMIT 1`,
      [city],
    );
    const entering = (
      await app.db.sql.query<{ id: number }>('SELECT id FROM entities WHERE hq_city = $1 AND deleted_at IS NULL ORDER BY id', [other!.hq_city])
    ).map((row) => row.id);
    expect(entering.length).toBeGreaterThan(1);
    const before = members.received.length;
    // The first delivery fails once: it comes again, with the same webhook-id.
    members.answer(503, 200);
    const patched = await call(auth, 'PATCH', `/api/ecosystems/${ecosystemId}`, { filter: `or(hq_city:"${city}",hq_city:"${other!.hq_city}")` });
    expect(patched.status).toBe(200);
    await members.waitFor(before + entering.length + 1, 60_000);
    // Nothing more arrives once the differences are delivered.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const sent = verified(members, membersSecret, before);
    expect(sent).toHaveLength(entering.length + 1);
    const ids = sent.map((event) => event.id);
    const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
    expect(repeated).toHaveLength(1);
    expect(sent.filter((event) => event.id === repeated[0])).toHaveLength(2);
    const distinct = [...new Map(sent.map((event) => [event.id, event])).values()];
    expect(distinct.map((event) => event.type).every((type) => type === 'ecosystem.entity_entered')).toBe(true);
    expect(distinct.map((event) => event.data.entity_id).sort((a, b) => Number(a) - Number(b))).toEqual(entering);
  });
});

describe('change events', () => {
  it('carry the change as the feed shows it, webhook-id naming it, each once', async () => {
    await waitUntil(() => verified(changes, changesSecret).some((event) => event.type === 'entity.updated' && event.data.object_id === COMPANY), 60_000);
    const all = verified(changes, changesSecret);
    const ids = all.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const created = all.find((event) => event.type === 'entity.created' && event.data.object_id === COMPANY);
    const moved = all.find((event) => event.type === 'entity.updated' && event.data.object_id === COMPANY);
    expect(created).toBeDefined();
    expect(moved!.data.changed_fields).toEqual(expect.arrayContaining(['hq_city']));
    // The event's data is the feed's change, and its webhook-id is made of the change id.
    const listed: Record<string, unknown>[] = [];
    for (let cursor = ''; ; ) {
      const response = await auth.fetch(`/api/changes?types=entity&limit=1000${cursor}`);
      const page = (await response.json()) as { data: Record<string, unknown>[]; page: { next_cursor: string } };
      listed.push(...page.data);
      if (page.data.length < 1000) break;
      cursor = `&since=${page.page.next_cursor}`;
    }
    for (const event of [created!, moved!]) {
      const change = listed.find((item) => item.id === event.data.id);
      expect(change).toEqual(event.data);
      expect(event.id).toBe(`msg_${change!.id as string}`);
    }
  });
});
