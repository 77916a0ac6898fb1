/**
 * REST read routes are served from plans made at start-up, without the GraphQL pipeline
 * (src/graphql/use-compiled-reads.ts, `prepare`; src/rest/handler.ts). Proved by the counter that
 * path alone increments, `compiled_reads_direct_total`: it moves for a compiled route and for nothing
 * else, while `compiled_reads_total` and the fallbacks count exactly as through the pipeline. Whether
 * the answers equal the resolvers' is compiled-equals-resolvers.test.ts's job; this file checks only
 * which path answered, and that the checks before it still refuse as they did.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { compiledReadsMovedBy } from '../../helpers/compiled-reads.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
let app: TestApp;
let admin: TestCredentials;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 40 });
  app = await startTestApp({ db });
  admin = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

/** What one request moved: operations compiled, of those served directly, and fallbacks by reason. */
async function moved(request: () => Promise<Response>): Promise<{ status: number; compiled: number; direct: number; fallbacks: Record<string, number> }> {
  let status = 0;
  const counters = await compiledReadsMovedBy(app, async () => {
    const response = await request();
    await response.arrayBuffer();
    status = response.status;
  });
  return { status, ...counters };
}

test('a list page, a record and a total are served directly from their prepared plans', async () => {
  expect(await moved(() => admin.fetch('/api/entities?limit=3'))).toEqual({ status: 200, compiled: 1, direct: 1, fallbacks: {} });
  expect(await moved(() => admin.fetch('/api/entities?limit=3&include_total=true'))).toEqual({ status: 200, compiled: 1, direct: 1, fallbacks: {} });
  expect(await moved(() => admin.fetch('/api/founders/1'))).toEqual({ status: 200, compiled: 1, direct: 1, fallbacks: {} });
  // A record that does not exist is still read by the compiled statement; the envelope says 404.
  expect(await moved(() => admin.fetch('/api/entities/999999'))).toEqual({ status: 404, compiled: 1, direct: 1, fallbacks: {} });
});

test('arguments the resolvers must word fall back once, counted with their reason, and are answered by the resolvers', async () => {
  expect(await moved(() => admin.fetch('/api/entities?filter=nme:x'))).toEqual({ status: 400, compiled: 0, direct: 0, fallbacks: { invalid_arguments: 1 } });
});

test('a route that is not a compiled read goes through the pipeline, counted as before', async () => {
  expect(await moved(() => admin.fetch('/api/api-keys'))).toEqual({ status: 200, compiled: 0, direct: 0, fallbacks: { root_field: 1 } });
  // A write is not a read: nothing counted.
  expect(await moved(() => admin.fetch('/api/ecosystems', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))).toMatchObject({
    status: 400,
    compiled: 0,
    direct: 0,
    fallbacks: {},
  });
});

test('the checks before the read still come first: no token, no permission', async () => {
  expect(await moved(() => app.fetch('/api/entities/1'))).toEqual({ status: 400, compiled: 0, direct: 0, fallbacks: {} });
  const reader = await createApiKeyAndToken(app, { permissions: ['read:founders'] });
  expect(await moved(() => reader.fetch('/api/entities/1'))).toEqual({ status: 403, compiled: 0, direct: 0, fallbacks: {} });
  expect(await moved(() => reader.fetch('/api/founders/1'))).toEqual({ status: 200, compiled: 1, direct: 1, fallbacks: {} });
});
