// URL safety at delivery: a name that resolved to a public address at creation and resolves to a
// loopback address later is refused at the attempt (a clear error in the log, nothing sent), and the
// connection goes to the address that was checked: one lookup per attempt, no second one.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';
import { createWebhook, DELIVERY_ENV, deliveryLog, startReceiver, waitUntil, type Receiver } from './support.ts';

const apps: TestApp[] = [];
let receiver: Receiver | undefined;

afterEach(async () => {
  await receiver?.close();
});

afterAll(async () => {
  for (const app of apps) await app.close();
});

describe('at each delivery', () => {
  it('refuses a name that now resolves to a loopback address (DNS rebinding): the attempt fails, nothing is sent', async () => {
    receiver = await startReceiver();
    const answers = ['93.184.216.34', '127.0.0.1'];
    const lookups: string[] = [];
    const app = await startTestApp({
      env: { ...DELIVERY_ENV, WEBHOOK_ALLOW_PRIVATE_URLS: 'false' },
      resolveHost: async (name) => {
        lookups.push(name);
        return [answers.length > 1 ? answers.shift()! : answers[0]!];
      },
    });
    apps.push(app);
    const admin = await createApiKeyAndToken(app);
    const { id } = await createWebhook(admin, { url: `http://rebind.example.test:${receiver.port}/hook` });
    await call(admin, 'POST', `/api/webhooks/${id}/test`);
    await waitUntil(async () => (await deliveryLog(admin, id)).length >= 2);
    const [first] = (await deliveryLog(admin, id)).reverse();
    expect(first).toMatchObject({ response_status: null, delivery_status: expect.any(String) });
    expect(first!.error).toBe('refused: rebind.example.test (127.0.0.1) is a loopback address; webhooks must reach public addresses (WEBHOOK_ALLOW_PRIVATE_URLS=true allows others)');
    expect(first!.next_attempt_at).not.toBeNull();
    expect(receiver.received).toEqual([]);
    expect(lookups.length).toBeGreaterThanOrEqual(3); // once at creation, then once per attempt
  });

  it('connects to the address it checked: the receiver is reached through a name only the app’s resolver knows', async () => {
    receiver = await startReceiver();
    const lookups: string[] = [];
    const app = await startTestApp({
      env: DELIVERY_ENV,
      resolveHost: async (name) => {
        lookups.push(name);
        if (name !== 'receiver.example.test') throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
        return ['127.0.0.1'];
      },
    });
    apps.push(app);
    const admin = await createApiKeyAndToken(app);
    const { id } = await createWebhook(admin, { url: `http://receiver.example.test:${receiver.port}/hook` });
    lookups.length = 0;
    await call(admin, 'POST', `/api/webhooks/${id}/test`);
    const [request] = await receiver.waitFor(1);
    // The request names the host of the URL; the system's resolver has never heard of it.
    expect(request!.host).toBe(`receiver.example.test:${receiver.port}`);
    await waitUntil(async () => (await deliveryLog(admin, id))[0]?.delivery_status === 'succeeded');
    expect(lookups).toEqual(['receiver.example.test']);
  });

  it('logs a name that does not resolve as the attempt’s error', async () => {
    const app = await startTestApp({ env: DELIVERY_ENV });
    apps.push(app);
    const admin = await createApiKeyAndToken(app);
    const { id } = await createWebhook(admin, { url: 'https://nowhere.example.invalid/hook' });
    await call(admin, 'POST', `/api/webhooks/${id}/test`);
    await waitUntil(async () => (await deliveryLog(admin, id)).length >= 1);
    expect((await deliveryLog(admin, id)).at(-1)!.error).toMatch(/^refused: could not resolve nowhere\.example\.invalid: /);
  });
});
