/**
 * An ecosystem's filter edited as an integrator edits it, with the service's background work running:
 * the data loaded first, then a webhook for the membership events, an ecosystem, and at once an edit of
 * its filter. The webhook receives the edit's `entity_left` and `entity_entered` events, signed, within
 * seconds (the contract allows 60 s), though no data commit came after the webhook; a webhook created
 * after the edit receives none of them. /metrics shows the followers at the head and the events they
 * emitted.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';
import { createWebhook, deliveryLog, DELIVERY_ENV, startReceiver, waitUntil, type Receiver } from './support.ts';

let app: TestApp;
let auth: TestCredentials;
let early: Receiver;
let late: Receiver;
const EVENTS = ['ecosystem.entity_entered', 'ecosystem.entity_left'];

beforeAll(async () => {
  app = await startTestApp({ env: { ...DELIVERY_ENV, BACKGROUND_WORKERS: 'true', CHANGES_POLL_MS: '200' } });
  await seedDatabase(app.db, { entities: 1_500, seed: 7 });
  auth = await createApiKeyAndToken(app);
  early = await startReceiver('/early');
  late = await startReceiver('/late');
}, 180_000);

afterAll(async () => {
  await early?.close();
  await late?.close();
  await app?.close();
});

const idsOf = async (filter: string): Promise<number[]> => {
  const response = await call(auth, 'GET', `/api/entities?filter=${encodeURIComponent(filter)}&limit=100&fields=id`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.data as { id: number }[]).map((entity) => entity.id);
};

/** The value of one series on /metrics (undefined when absent). */
async function metric(series: string): Promise<number | undefined> {
  const text = await (await app.fetch('/metrics')).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

it("a webhook created after the data was loaded hears an edit's entered and left events within seconds; one created after the edit hears none", async () => {
  const [from, to] = (
    await app.db.sql.query<{ prefix: string }>(
      `SELECT left(name, 3) AS prefix FROM entities WHERE deleted_at IS NULL AND name ~ '^[A-Za-z]{3}'
        GROUP BY 1 HAVING count(*) BETWEEN 2 AND 5 ORDER BY count(*) DESC, 1 LIMIT 2`,
    )
  ).map((row) => row.prefix);
  const leaving = await idsOf(`name[starts_with]:${from}`);
  const entering = await idsOf(`name[starts_with]:${to}`);
  const { id: earlyId, secret } = await createWebhook(auth, { url: early.url, events: EVENTS });
  const created = await call(auth, 'POST', '/api/ecosystems', { slug: 'edited', name: 'Edited', filter: `name[starts_with]:${from}` });
  expect(created.status).toBe(201);
  const ecosystem = created.body.data.id as number;
  const edited = Date.now();
  expect((await call(auth, 'PATCH', `/api/ecosystems/${ecosystem}`, { filter: `name[starts_with]:${to}` })).status).toBe(200);
  const { id: lateId } = await createWebhook(auth, { url: late.url, events: EVENTS });

  const expected = [
    ...leaving.map((id) => `ecosystem.entity_left ${id}`),
    ...entering.map((id) => `ecosystem.entity_entered ${id}`),
  ].sort();
  await early.waitFor(expected.length, 60_000);
  expect(Date.now() - edited).toBeLessThan(60_000);
  const events = early.received.map(
    (request) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; data: { ecosystem_id: number; entity_id: number } },
  );
  expect(events.every((event) => event.data.ecosystem_id === ecosystem)).toBe(true);
  expect(events.map((event) => `${event.type} ${event.data.entity_id}`).sort()).toEqual(expected);
  // Each attempt is logged once its answer came back.
  const succeeded = async () => (await deliveryLog(auth, earlyId)).filter((attempt) => attempt.response_status === 200).length;
  await waitUntil(async () => (await succeeded()) === expected.length, 10_000);

  // The late webhook: nothing in its log, nothing received, while the followers stand at the head.
  await waitUntil(async () => (await metric('change_follower_lag_commits{follower="ecosystem-membership"}')) === 0, 10_000);
  await waitUntil(async () => (await metric('change_follower_lag_commits{follower="webhook-events"}')) === 0, 10_000);
  expect(await deliveryLog(auth, lateId)).toEqual([]);
  expect(late.received).toEqual([]);

  const [head] = await app.db.sql.query<{ position: string }>('SELECT position::text FROM change_clock');
  expect(await metric('change_follower_position{follower="ecosystem-membership"}')).toBe(Number(head!.position));
  expect(await metric('change_follower_lag_seconds{follower="ecosystem-membership"}')).toBe(0);
  expect(await metric('change_follower_events_total{follower="ecosystem-membership",type="ecosystem.entity_entered"}')).toBe(entering.length);
  expect(await metric('change_follower_events_total{follower="ecosystem-membership",type="ecosystem.entity_left"}')).toBe(leaving.length);
}, 120_000);
