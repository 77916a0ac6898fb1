// Two instances on one database (a load balancer's view): a token from one works on the other, and a
// revocation through one is seen by the other on its next request. No cache can serve a revoked key.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken } from '../../helpers/auth.ts';

let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  const env = { PUBLIC_URL: `http://api-${randomBytes(4).toString('hex')}.test` };
  first = await startTestApp({ env });
  second = await startTestApp({ db: first.db, env });
});

afterAll(async () => {
  await second.close();
  await first.close();
});

it('revokes on every instance at once', async () => {
  const admin = await createApiKeyAndToken(first);
  const worker = await createApiKeyAndToken(first, { permissions: ['read:entities'] });
  // Both instances have served (and could have cached) the worker's key.
  expect((await first.fetch('/api/entities', { headers: worker.headers })).status).toBe(200);
  expect((await second.fetch('/api/entities', { headers: worker.headers })).status).toBe(200);

  const revoked = await second.fetch(`/api/api-keys/${worker.keyId}`, { method: 'DELETE', headers: admin.headers });
  expect(revoked.status).toBe(204);
  expect((await first.fetch('/api/entities', { headers: worker.headers })).status).toBe(401);
  expect((await second.fetch('/api/entities', { headers: worker.headers })).status).toBe(401);
  expect((await first.fetch('/graphql', { method: 'POST', headers: { ...worker.headers, 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })).status).toBe(401);
});
