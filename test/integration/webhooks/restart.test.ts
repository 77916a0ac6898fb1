// Pending deliveries survive a crash: a server killed (SIGKILL) while its receiver holds an attempt
// open leaves the delivery claimed under a lease; the server started again takes it when the lease
// runs out and delivers it with the same webhook-id. And a graceful stop (SIGTERM) mid-attempt hands
// the claim back at once. Between the runs the test reads the delivery's row itself.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/client.ts';
import { testDatabaseKind } from '../../helpers/db.ts';
import { createScratchDatabase } from '../../helpers/server-process.ts';
import { adminOf, processEnvironment, startServer, stopServer, type RunningServer } from '../usage/process-support.ts';
import { startReceiver, waitUntil, type Receiver } from './support.ts';

let env: Record<string, string>;
let database: { url: string; drop(): Promise<void> } | undefined;
let receiver: Receiver;
let running: RunningServer | undefined;

beforeAll(async () => {
  database = testDatabaseKind() === 'postgres' ? await createScratchDatabase() : undefined;
  env = processEnvironment({
    ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: mkdtempSync(join(tmpdir(), 'vda-webhooks-')) }),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_LEASE_MS: '10000',
    WEBHOOK_POLL_INTERVAL_MS: '100',
  });
  receiver = await startReceiver();
}, 60_000);

afterAll(async () => {
  if (running) await stopServer(running);
  await receiver.close();
  await database?.drop();
});

interface DeliveryState {
  claimed: boolean;
  lease_left: boolean;
  attempts: number;
  status: string;
}

/** The delivery's row, read from the database while no server runs. */
async function deliveryState(eventId: string): Promise<DeliveryState> {
  const db = await openDatabase(database ? { url: database.url } : { dataDir: join(env.DATA_DIR!, 'pglite') });
  try {
    const [row] = await db.sql.query<DeliveryState>(
      `SELECT claim IS NOT NULL AS claimed, COALESCE(claimed_until > now(), false) AS lease_left, attempts, status
       FROM webhook_deliveries WHERE event_id = $1`,
      [eventId],
    );
    return row!;
  } finally {
    await db.close();
  }
}

async function api(server: RunningServer, method: string, path: string, body?: unknown) {
  const admin = await adminOf(server.url, env);
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...admin.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { data: any } };
}

it('a server killed mid-delivery leaves it to the next one, which delivers it with the same webhook-id', async () => {
  receiver.answer('hang', 200);
  running = await startServer(env);
  const webhook = (await api(running, 'POST', '/api/webhooks', { url: receiver.url, events: ['entity.created'] })).body.data;
  const sent = (await api(running, 'POST', `/api/webhooks/${webhook.id}/test`)).body.data;
  await receiver.waitFor(1);
  running.server.child.kill('SIGKILL');
  await running.server.exit;
  // The dead server's claim holds it: nobody else may attempt it until the lease runs out.
  expect(await deliveryState(sent.event_id)).toEqual({ claimed: true, lease_left: true, attempts: 0, status: 'pending' });

  running = await startServer(env);
  const [first, second] = await receiver.waitFor(2, 30_000);
  expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
  expect(second!.headers['webhook-id']).toBe(sent.event_id);
  const server = running;
  await waitUntil(async () => (await api(server, 'GET', `/api/webhooks/${webhook.id}/deliveries`)).body.data[0]?.delivery_status === 'succeeded', 20_000);
  // The killed attempt never finished, so only the successful one is in the log.
  const log = (await api(server, 'GET', `/api/webhooks/${webhook.id}/deliveries`)).body.data;
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ response_status: 200, event_id: sent.event_id });
}, 120_000);

it('a graceful stop mid-delivery hands the claim back: the next start delivers it without waiting for the lease', async () => {
  receiver.answer('hang', 200);
  const before = receiver.received.length;
  const server = running!;
  const webhook = (await api(server, 'POST', '/api/webhooks', { url: receiver.url, events: ['entity.created'] })).body.data;
  const sent = (await api(server, 'POST', `/api/webhooks/${webhook.id}/test`)).body.data;
  await receiver.waitFor(before + 1);
  expect(await stopServer(server)).toBe(0);
  running = undefined;
  // Handed back, unattempted: the next claim may take it at once.
  expect(await deliveryState(sent.event_id)).toEqual({ claimed: false, lease_left: false, attempts: 0, status: 'pending' });
  running = await startServer(env);
  const received = await receiver.waitFor(before + 2, 30_000);
  expect(received.at(-1)!.headers['webhook-id']).toBe(sent.event_id);
}, 120_000);
