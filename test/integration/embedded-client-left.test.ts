// The embedded database has one session and cannot cancel the statement it runs, so a request whose
// client left must stop sending statements (src/db/pglite.ts): reads take turns and each looks at its
// client's signal when its turn comes. A real HTTP client asks for the similar companies of 25
// entities through the resolvers (a filter keeps the operation off the compiled path: one statement per
// entity, all queued at once) and disconnects as the first one is sent; the rest are never sent, and a
// record read sent then is answered at once. PostgreSQL cancels on its own (test/postgres/abandoned-requests.test.ts),
// so this file runs on the embedded database only (vitest.config.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

// A page whose similar companies the fan-out budget lets through (src/compile/similar-schema.ts).
const ROWS = 25;
const QUERY = `{ entities(limit: ${ROWS}, sort: "id") { data { id similar(limit: 5, filter: "is_company:true") { data { id } } } } }`;

let app: TestApp;
let auth: TestCredentials;
let similarSent = 0;
let onSimilar: (() => void) | undefined;
/** How long the whole request takes when its client stays. */
let wholeMs = 0;

beforeAll(async () => {
  app = await startTestApp({
    onQuery: (sql) => {
      if (!sql.includes('similarity_profiles')) return;
      similarSent += 1;
      onSimilar?.();
    },
  });
  await seedDatabase(app.db, { entities: 400 });
  auth = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

it('answers the whole request when its client stays: one similar statement per entity', async () => {
  similarSent = 0;
  const started = performance.now();
  const { status, body } = await auth.graphql(QUERY);
  wholeMs = performance.now() - started;
  expect(status).toBe(200);
  expect(body.errors).toBeUndefined();
  expect(similarSent).toBe(ROWS);
});

it('sends none of the queued statements once the client has left, and serves the next request at once', async () => {
  similarSent = 0;
  const controller = new AbortController();
  // The client disconnects as the first of its statements is sent.
  onSimilar = () => controller.abort();
  const abandoned = auth.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }), signal: controller.signal });
  await expect(abandoned).rejects.toThrow();
  onSimilar = undefined;

  const started = performance.now();
  const record = await auth.fetch('/api/entities/1');
  const waited = performance.now() - started;
  expect(record.status).toBe(200);
  // Behind the 24 statements queued it would have waited for nearly the whole request (the first test's);
  // it waits for the one in flight. Relative, so a loaded machine slows both alike.
  expect(waited).toBeLessThan(wholeMs / 3);

  // What was sent by then is all that is ever sent: the one in flight as the client left, not the 25.
  const sentByThen = similarSent;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(similarSent).toBe(sentByThen);
  expect(similarSent).toBeLessThan(ROWS / 5);
  // Logged as a cancel, not as an outage.
  expect(app.logs.join('')).not.toContain('database unavailable');
});
