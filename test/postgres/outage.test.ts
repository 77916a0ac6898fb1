// PostgreSQL going away and coming back, through a proxy the test cuts: the API, GraphQL, the token
// endpoint and /readyz answer 503 SERVICE_UNAVAILABLE with Retry-After, and serve again once it is back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestAppOnPool, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, createTestApiKey, postTokenRequest, type TestCredentials } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

let direct: TestDatabase;
let proxy: TcpProxy;
let app: TestApp;
let auth: TestCredentials;
let key: { client_id: string; client_secret: string };

beforeAll(async () => {
  direct = await createTestDatabase();
  const target = new URL(direct.connection.url!);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  target.port = String(proxy.port);
  app = await startTestAppOnPool(direct, { url: target.toString(), poolSize: 3, connectTimeoutMs: 1_000 });
  auth = await createApiKeyAndToken(app);
  key = await createTestApiKey(app, { permissions: ['read:entities'] });
});

afterAll(async () => {
  await app.close();
  await proxy.close();
  await direct.destroy();
});

const tokenRequest = () => postTokenRequest(app, key);

it('answers 503 with Retry-After on every transport while the database is away, and recovers', async () => {
  expect((await auth.fetch('/api/entities?limit=1')).status).toBe(200);
  await proxy.cut();
  try {
    const rest = await auth.fetch('/api/entities?limit=1');
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('5');
    expect((await rest.json()).error.code).toBe('SERVICE_UNAVAILABLE');

    const graphql = await auth.graphql('{ entities(limit: 1) { data { id } } }');
    expect(graphql.status).toBe(503);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');

    const token = await tokenRequest();
    expect(token.status).toBe(503);
    expect(token.headers.get('retry-after')).toBe('5');
    expect((await token.json()).error.code).toBe('SERVICE_UNAVAILABLE');

    expect((await app.fetch('/readyz')).status).toBe(503);
    expect(app.logs.join('')).not.toMatch(/"level":50/);
  } finally {
    await proxy.restore();
  }
  await expect.poll(async () => (await auth.fetch('/api/entities?limit=1')).status, { timeout: 10_000 }).toBe(200);
  expect((await tokenRequest()).status).toBe(200);
  expect((await app.fetch('/readyz')).status).toBe(200);
});
