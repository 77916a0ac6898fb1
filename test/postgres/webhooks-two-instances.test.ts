// Two app instances on one PostgreSQL, each with its deliverer and its own connection pool: of N
// events, the receiver gets each exactly once, both instances deliver a share, and the log holds one
// attempt per delivery (claims with FOR UPDATE SKIP LOCKED, src/changes/deliverer.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueueEvents, type OutboxEvent } from '../../src/changes/outbox.ts';
import { startTestApp, startTestAppOnPool, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createWebhook, DELIVERY_ENV, startReceiver, waitUntil, type Receiver } from '../integration/webhooks/support.ts';

const EVENTS = 400;
// A lease that cannot run out on a busy machine: a second attempt here could only come from a double claim.
const ENV = { ...DELIVERY_ENV, WEBHOOK_LEASE_MS: '60000' };

let db: TestDatabase;
let first: TestApp;
let second: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  first = await startTestApp({ db, env: ENV });
  second = await startTestAppOnPool(db, { url: db.connection.url!, poolSize: 5 }, { env: ENV });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver.close();
  await second.close();
  await first.close();
  await db.destroy();
});

/** The `succeeded` count of an instance's webhook_deliveries_total. */
async function delivered(app: TestApp): Promise<number> {
  const text = await (await app.fetch('/metrics')).text();
  return Number(/^webhook_deliveries_total\{outcome="succeeded"\} (\d+)$/m.exec(text)?.[1] ?? NaN);
}

it(`delivers each of ${EVENTS} events once between them`, async () => {
  const admin = await createApiKeyAndToken(first);
  const { id } = await createWebhook(admin, { url: receiver.url, events: ['entity.updated'] });
  const events: OutboxEvent[] = Array.from({ length: EVENTS }, (_, index) => ({
    id: `chg_two_${index}`,
    type: 'entity.updated',
    occurredAt: new Date(),
    data: { id: `chg_two_${index}`, type: 'entity.updated', object_id: index, occurred_at: new Date().toISOString(), changed_fields: ['name'] },
  }));
  // Committed in batches, as writes arrive, while both deliverers are already sending.
  for (let start = 0; start < EVENTS; start += 50) {
    await db.sql.transaction((tx) => enqueueEvents(tx, events.slice(start, start + 50)));
  }
  await receiver.waitFor(EVENTS, 60_000);
  await waitUntil(async () => {
    const [row] = await db.sql.query<{ pending: number }>(`SELECT count(*)::int AS pending FROM webhook_deliveries WHERE status <> 'succeeded'`);
    return row!.pending === 0;
  }, 30_000, 'every delivery to succeed');
  // A moment for any duplicate to arrive, had one been sent.
  await new Promise((resolve) => setTimeout(resolve, 500));

  const ids = receiver.received.map((request) => request.headers['webhook-id']);
  expect(ids).toHaveLength(EVENTS);
  expect(new Set(ids).size).toBe(EVENTS);
  const [{ attempts }] = (await db.sql.query<{ attempts: number }>(
    `SELECT count(*)::int AS attempts FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1`,
    [id],
  )) as [{ attempts: number }];
  expect(attempts).toBe(EVENTS);
  const shares = [await delivered(first), await delivered(second)];
  expect(shares[0]! + shares[1]!).toBe(EVENTS);
  expect(shares.every((share) => share > 0)).toBe(true);
}, 120_000);
