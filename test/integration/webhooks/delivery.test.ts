// Deliveries to real receivers: signed per Standard Webhooks, retried with the same webhook-id after a
// 5xx, a timeout or a refused connection, given up after the schedule, a 410 disabling the endpoint, a
// 3-day failure disabling it, the delivery log, a manual retry, and the metrics.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';
import { createWebhook, DELIVERY_ENV, deliveryLog, startReceiver, waitUntil, type Receiver } from './support.ts';

let app: TestApp;
let admin: TestCredentials;
let receiver: Receiver;

beforeAll(async () => {
  app = await startTestApp({ env: DELIVERY_ENV });
  admin = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

async function freshReceiver(): Promise<Receiver> {
  receiver = await startReceiver();
  return receiver;
}

afterEach(async () => {
  await receiver?.close();
});

const test = (webhookId: number) => call(admin, 'POST', `/api/webhooks/${webhookId}/test`);

describe('a test event', () => {
  it('reaches the receiver signed: the standardwebhooks package verifies it', async () => {
    const hook = await freshReceiver();
    const { id, secret } = await createWebhook(admin, { url: hook.url });
    const sent = await test(id);
    expect(sent.status).toBe(201);
    expect(sent.body.data).toMatchObject({ webhook_id: id, event_type: 'webhook.test', status: 'pending', attempts: 0 });
    const [request] = await hook.waitFor(1);
    const headers = request!.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(sent.body.data.event_id);
    expect(headers['content-type']).toBe('application/json');
    expect(Number(headers['content-length'])).toBe(Buffer.byteLength(request!.body));
    const verified = new Webhook(secret).verify(request!.body, headers) as { type: string; timestamp: string; data: unknown };
    expect(verified).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { webhook_id: id } });
    expect(new Date(verified.timestamp).toISOString()).toBe(verified.timestamp);
    // Another secret does not verify it.
    expect(() => new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(request!.body, headers)).toThrow();
    await waitUntil(async () => (await deliveryLog(admin, id)).length === 1);
    const [attempt] = await deliveryLog(admin, id);
    expect(attempt).toMatchObject({ event_id: sent.body.data.event_id, event_type: 'webhook.test', response_status: 200, error: null, next_attempt_at: null, delivery_status: 'succeeded' });
  });
});

describe('waking', () => {
  it('sends an event enqueued after the start at once, woken by NOTIFY at commit, not by polling', async () => {
    const hook = await freshReceiver();
    // An app of its own whose poll is a minute away: only the notification can wake it in time.
    const quiet = await startTestApp({ env: { ...DELIVERY_ENV, WEBHOOK_POLL_INTERVAL_MS: '60000' } });
    try {
      const caller = await createApiKeyAndToken(quiet);
      const { id } = await createWebhook(caller, { url: hook.url });
      await call(caller, 'POST', `/api/webhooks/${id}/test`);
      await hook.waitFor(1, 20_000);
    } finally {
      await quiet.close();
    }
  });
});

describe('retries', () => {
  it.each([
    ['a 5xx answer', [503, 500, 200] as const, /answered 50[03]/],
    ['no answer within the timeout', ['hang', 'hang', 200] as const, /no answer within 600 ms/],
    ['a dropped connection', ['close', 'close', 200] as const, /ECONNRESET|socket hang up|reset/],
  ])('after %s, the same event comes again with the same webhook-id until a 2xx', async (_name, answers, error) => {
    const hook = await freshReceiver();
    hook.answer(...answers);
    const { id } = await createWebhook(admin, { url: hook.url });
    const sent = await test(id);
    const requests = await hook.waitFor(3);
    expect(requests.map((request) => request.headers['webhook-id'])).toEqual([sent.body.data.event_id, sent.body.data.event_id, sent.body.data.event_id]);
    await waitUntil(async () => (await deliveryLog(admin, id)).length === 3);
    const log = (await deliveryLog(admin, id)).reverse();
    expect(log[0]!.error).toMatch(error);
    expect(log[0]!.next_attempt_at).not.toBeNull();
    expect(log[1]!.error).toMatch(error);
    expect(log[2]).toMatchObject({ response_status: 200, error: null, next_attempt_at: null, delivery_status: 'succeeded' });
    // The endpoint answers again: it is not failing any more.
    expect((await call(admin, 'GET', `/api/webhooks/${id}`)).body.data).toMatchObject({ enabled: true, failing_since: null });
  });

  it('manual retries while the deliverer records attempts of the same delivery all succeed (no deadlock)', async () => {
    const hook = await freshReceiver();
    hook.answer(503);
    const { id } = await createWebhook(admin, { url: hook.url });
    const sent = await test(id);
    const delivery = sent.body.data.id as number;
    // Each retry lands while an attempt answered 503 is being recorded, again and again.
    const statuses: number[] = [];
    for (let round = 0; round < 40; round += 1) {
      statuses.push((await call(admin, 'POST', `/api/webhooks/${id}/deliveries/${delivery}/retry`)).status);
      await new Promise((resolve) => setTimeout(resolve, round % 5));
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(hook.received.length).toBeGreaterThan(5);
  });

  it('retries a refused connection, gives up after the schedule, and a manual retry sends it again', async () => {
    const hook = await freshReceiver();
    const { id } = await createWebhook(admin, { url: hook.url });
    await hook.close(); // nothing listens on the port now
    const sent = await test(id);
    await waitUntil(async () => (await deliveryLog(admin, id)).some((attempt) => attempt.delivery_status === 'failed'));
    const log = (await deliveryLog(admin, id)).reverse();
    // The first attempt and one per delay of the schedule (3), then it fails.
    expect(log).toHaveLength(4);
    expect(log.every((attempt) => attempt.error === 'connection refused' && attempt.response_status === null)).toBe(true);
    expect(log.map((attempt) => attempt.next_attempt_at === null)).toEqual([false, false, false, true]);
    const webhook = (await call(admin, 'GET', `/api/webhooks/${id}`)).body.data;
    expect(webhook.failing_since).not.toBeNull();
    expect(webhook.enabled).toBe(true);

    const revived = await startReceiver();
    receiver = revived;
    await call(admin, 'PATCH', `/api/webhooks/${id}`, { url: revived.url });
    const retried = await call(admin, 'POST', `/api/webhooks/${id}/deliveries/${log[0]!.delivery_id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ id: log[0]!.delivery_id, status: 'pending', attempts: 4 });
    const [request] = await revived.waitFor(1);
    expect(request!.headers['webhook-id']).toBe(sent.body.data.event_id);
    await waitUntil(async () => (await deliveryLog(admin, id))[0]?.delivery_status === 'succeeded');
  });
});

describe('disabling', () => {
  it('a 410 answer disables the endpoint: nothing more is sent until it is enabled again', async () => {
    const hook = await freshReceiver();
    hook.answer(410, 200);
    const { id } = await createWebhook(admin, { url: hook.url });
    await test(id);
    await waitUntil(async () => (await call(admin, 'GET', `/api/webhooks/${id}`)).body.data.enabled === false);
    const webhook = (await call(admin, 'GET', `/api/webhooks/${id}`)).body.data;
    expect(webhook.disabled_reason).toMatch(/410/);
    const [attempt] = await deliveryLog(admin, id);
    expect(attempt).toMatchObject({ response_status: 410, next_attempt_at: null, delivery_status: 'failed' });
    // Disabled: a test is refused, and no event is enqueued for it.
    expect((await test(id)).status).toBe(409);
    const enabled = await call(admin, 'PATCH', `/api/webhooks/${id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    expect((await test(id)).status).toBe(201);
    await hook.waitFor(2);
  });

  it('an endpoint failing for 3 days is disabled by its next failure', async () => {
    const hook = await freshReceiver();
    hook.answer(500);
    const { id } = await createWebhook(admin, { url: hook.url });
    await app.db.sql.query(`UPDATE webhooks SET failing_since = now() - interval '3 days 1 minute' WHERE id = $1`, [id]);
    await test(id);
    await waitUntil(async () => (await call(admin, 'GET', `/api/webhooks/${id}`)).body.data.enabled === false);
    const webhook = (await call(admin, 'GET', `/api/webhooks/${id}`)).body.data;
    expect(webhook.disabled_reason).toBe('every attempt failed for 3 days');
    // Its pending retry waits: disabled endpoints get no attempts.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.received).toHaveLength(1);
  });
});

describe('retention', () => {
  it('deletes events past WEBHOOK_LOG_RETENTION_DAYS with their deliveries and log, but never one still pending', async () => {
    const hook = await freshReceiver();
    const { id } = await createWebhook(admin, { url: hook.url });
    const done = (await test(id)).body.data;
    await waitUntil(async () => (await deliveryLog(admin, id))[0]?.delivery_status === 'succeeded');
    // A disabled webhook's delivery stays pending.
    await call(admin, 'PATCH', `/api/webhooks/${id}`, { enabled: false });
    await app.db.sql.query(`INSERT INTO webhook_events (id, type, occurred_at, data) VALUES ('evt_old_pending', 'entity.created', now(), '{}')`);
    const [waiting] = await app.db.sql.query<{ id: number; event_id: string }>(
      `INSERT INTO webhook_deliveries (webhook_id, event_id) VALUES ($1, 'evt_old_pending') RETURNING id, event_id`,
      [id],
    );
    await app.db.sql.query(`UPDATE webhook_events SET created_at = now() - interval '31 days' WHERE id = ANY($1)`, [[done.event_id, waiting!.event_id]]);
    // Pruning runs when a deliverer starts, then hourly.
    const another = await startTestApp({ db: app.db, env: DELIVERY_ENV });
    try {
      await waitUntil(async () => (await app.db.sql.query('SELECT 1 FROM webhook_events WHERE id = $1', [done.event_id])).length === 0);
      expect(await app.db.sql.query('SELECT 1 FROM webhook_deliveries WHERE id = $1', [done.id])).toEqual([]);
      expect(await app.db.sql.query('SELECT status FROM webhook_deliveries WHERE id = $1', [waiting!.id])).toEqual([{ status: 'pending' }]);
    } finally {
      await another.close();
    }
  });
});

describe('metrics', () => {
  it('counts attempts by outcome and shows pending deliveries', async () => {
    const text = await (await app.fetch('/metrics')).text();
    expect(text).toMatch(/webhook_deliveries_total\{outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/webhook_deliveries_total\{outcome="retry_scheduled"\} [1-9]/);
    expect(text).toMatch(/webhook_deliveries_total\{outcome="gave_up"\} [1-9]/);
    expect(text).toMatch(/webhook_deliveries_total\{outcome="endpoint_disabled"\} [1-9]/);
    expect(text).toMatch(/^webhook_deliveries_pending \d+$/m);
    expect(text).toMatch(/^webhook_oldest_pending_delivery_age_seconds [\d.e+-]+$/m);
  });
});
