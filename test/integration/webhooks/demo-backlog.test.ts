// A webhook hears what happens from its creation on, and a backlog of changes does not delay the
// present. Deterministically the worst case of a fresh start with the demo data: the demo load (24k
// entities, one commit of about 150k changes) is still ahead of both followers of the feed when an
// ecosystem and a webhook are created; then the background work starts, and a company is imported a
// second later. The webhook (a real receiver, real signed deliveries) gets that company's
// `entity.created` and `ecosystem.entity_entered` within 5 s of the import, and nothing of the demo load.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importDirectory } from '../../../src/data/import/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken } from '../../helpers/auth.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createDemoDatabase } from '../../helpers/demo-database.ts';
import { call } from '../management/support.ts';
import { createWebhook, DELIVERY_ENV, startReceiver, type Receiver } from './support.ts';

let db: TestDatabase;
let app: TestApp | undefined;
let receiver: Receiver;
let dir: string;
const COMPANY = 9_000_001;

beforeAll(async () => {
  db = await createDemoDatabase();
  receiver = await startReceiver();
  dir = await mkdtemp(join(tmpdir(), 'demo-backlog-'));
}, 600_000);

afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await db?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a webhook created while the demo load is ahead of the followers hears none of it, and an import a second later within 5 s', async () => {
  // Created while nothing follows the feed yet: the demo load is all backlog.
  const setup = await startTestApp({ db, env: DELIVERY_ENV });
  const admin = await createApiKeyAndToken(setup);
  const ecosystem = await call(admin, 'POST', '/api/ecosystems', { slug: 'bay', name: 'Bay', filter: 'and(hq_city:San Francisco,launch_year[gte]:2010)' });
  expect(ecosystem.status).toBe(201);
  const { id, secret } = await createWebhook(admin, { url: receiver.url, events: ['entity.created', 'ecosystem.entity_entered'] });
  await setup.close();
  const [followers] = await db.sql.query<{ behind: number }>('SELECT count(*)::int AS behind FROM change_followers WHERE position = 0');
  expect(followers!.behind).toBe(2);

  app = await startTestApp({ db, env: { ...DELIVERY_ENV, BACKGROUND_WORKERS: 'true' } });
  await sleep(1_000);
  const record = { id: COMPANY, type: 'company', name: 'Backlog Robotics', launch_year: 2024, hq_country: 'United States', hq_city: 'San Francisco' };
  await writeFile(join(dir, 'entities.jsonl'), `${JSON.stringify(record)}\n`);
  await importDirectory(db, dir);
  const committed = Date.now();

  const requests = await receiver.waitFor(2, 5_000);
  expect(Date.now() - committed).toBeLessThan(5_000);
  const events = requests.map((request) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; data: Record<string, unknown> });
  expect(events.map((event) => event.type).sort()).toEqual(['ecosystem.entity_entered', 'entity.created']);
  expect(events.find((event) => event.type === 'entity.created')!.data).toMatchObject({ type: 'entity.created', object_id: COMPANY });
  expect(events.find((event) => event.type === 'ecosystem.entity_entered')!.data).toEqual({ ecosystem_id: ecosystem.body.data.id, entity_id: COMPANY });

  // Nothing else comes: not one event of the demo load, which committed before the webhook existed.
  await sleep(2_500);
  expect(receiver.received).toHaveLength(2);
  const [deliveries] = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [id]);
  expect(deliveries!.n).toBe(2);
  // Both followers passed the demo load.
  const places = await db.sql.query<{ position: string }>('SELECT position::text FROM change_followers');
  const [head] = await db.sql.query<{ position: string }>('SELECT position::text FROM change_clock');
  expect(places.map((place) => place.position)).toEqual([head!.position, head!.position]);
}, 300_000);
