// WEBHOOK_SECRET_KEY: the secret is stored encrypted (the column does not hold it), deliveries are
// signed with the real secret, and an instance without the key does not send (the log says why).
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken } from '../../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { call } from '../management/support.ts';
import { createWebhook, DELIVERY_ENV, deliveryLog, startReceiver, waitUntil, type Receiver } from './support.ts';

const KEY = Buffer.alloc(32, 42).toString('base64');

let db: TestDatabase;
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver.close();
  await db.destroy();
});

it('stores the secret encrypted and signs with the real one; without the key nothing is sent', async () => {
  let app: TestApp = await startTestApp({ db, env: { ...DELIVERY_ENV, WEBHOOK_SECRET_KEY: KEY } });
  let admin = await createApiKeyAndToken(app);
  const { id, secret } = await createWebhook(admin, { url: receiver.url });
  const [stored] = await db.sql.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [id]);
  expect(stored!.secret).toMatch(/^enc:v1:/);
  expect(stored!.secret).not.toContain(secret.slice('whsec_'.length));

  await call(admin, 'POST', `/api/webhooks/${id}/test`);
  const [request] = await receiver.waitFor(1);
  expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
  await app.close();

  // The same database, served without the key.
  app = await startTestApp({ db, env: DELIVERY_ENV });
  try {
    admin = await createApiKeyAndToken(app);
    await call(admin, 'POST', `/api/webhooks/${id}/test`);
    await waitUntil(async () => (await deliveryLog(admin, id)).some((attempt) => attempt.error !== null));
    const failed = (await deliveryLog(admin, id)).find((attempt) => attempt.error !== null)!;
    expect(failed.error).toBe('not sent: the secret is stored encrypted and WEBHOOK_SECRET_KEY is not set');
    expect(receiver.received).toHaveLength(1);
    expect(app.logs.join('')).toContain('cannot sign webhook deliveries');
  } finally {
    await app.close();
  }
});
