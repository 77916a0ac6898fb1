/**
 * A /graphql document the pipeline has served compiled is served again without it
 * (src/graphql/direct-graphql.ts). Proved by `compiled_reads_direct_total`, which moves for the second
 * request of a document and not for the first, and by the two answers being the same to the byte,
 * headers included. Every request the direct path cannot finish goes on to yoga untouched: a refused
 * token, a missing permission, the fan-out limit, bad variables, an argument the resolvers word; each
 * is answered exactly as when the document is new, charged to the rate limit once and counted once.
 * A read the database fails is handed on with its failure: yoga answers it without reading again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import type { SqlClient } from '../../../src/db/client.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { compiledReadsMovedBy } from '../../helpers/compiled-reads.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { comparable as comparableResponse, rawRequest, type RawResponse } from '../../helpers/raw-http.ts';

let db: TestDatabase;
let app: TestApp;
let admin: TestCredentials;
let newsOnly: TestCredentials;
let preparedReads = 0;
let failing = false;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 40 });
  // The compiled reads' statements, counted; while `failing`, each fails as a lost connection does.
  const prepared: SqlClient['prepared'] = (sql, params, signal) => {
    preparedReads += 1;
    if (failing) return Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
    return db.sql.prepared(sql, params, signal);
  };
  // A rate limit that refills slowly, so the charge of each request shows in RateLimit-Remaining.
  app = await startTestApp({ db: { ...db, sql: { ...db.sql, prepared } }, env: { GRAPHQL_MAX_FAN_OUT: '5000', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '100000' } });
  admin = await createApiKeyAndToken(app);
  newsOnly = await createApiKeyAndToken(app, { permissions: ['read:news'] });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

type Raw = RawResponse;

const post = (body: unknown, headers: Record<string, string>): Promise<Raw> =>
  rawRequest(`${app.url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'same-id', ...headers }, body: JSON.stringify(body) });

/** Headers that differ between two requests by nature: the date, and the rate limit's remaining count and reset time. */
const comparable = (response: Raw) => comparableResponse(response, /^(date|ratelimit-remaining|ratelimit-reset)$/i);

const remaining = (response: Raw) => Number(response.headers.find(([name]) => /^ratelimit-remaining$/i.test(name))?.[1]);

/**
 * Whether ten requests, sent back to back, are charged to the rate limit once each: the remaining
 * count falls by ten, or nine if the bucket (one per second) refilled meanwhile; twice would be twenty.
 */
async function charged(send: () => Promise<Raw>): Promise<boolean> {
  const first = remaining(await send());
  let last = first;
  for (let sent = 0; sent < 10; sent += 1) last = remaining(await send());
  return first - last === 10 || first - last === 9;
}

let unique = 0;
/** The same document, spelled apart (a trailing comment: no location moves) so that it is new to the server. */
const fresh = (query: string) => `${query}\n# ${(unique += 1)}`;

describe('a document served compiled once', () => {
  test.each([
    ['a list', '{ entities(limit: 3, sort: "-total_funding_usd") { data { id name tags { name } } page { limit next_cursor } } }', undefined],
    ['a record by variable', 'query One($id: Int!) { entity(id: $id) { id name founders { name } } }', { id: 2 }],
    ['two roots and a fragment', '{ a: entities(limit: 2) { data { ...E } } b: founders(limit: 1) { data { name } } } fragment E on Entity { id name }', undefined],
  ])('%s is served again without the pipeline, with the same answer to the byte', async (_name, text, variables) => {
    const query = fresh(text);
    const headers = admin.headers;
    let first!: Raw;
    let second!: Raw;
    const firstMoved = await compiledReadsMovedBy(app, async () => (first = await post({ query, variables }, headers)));
    const secondMoved = await compiledReadsMovedBy(app, async () => (second = await post({ query, variables }, headers)));
    expect(firstMoved).toEqual({ compiled: 1, direct: 0, fallbacks: {} });
    expect(secondMoved).toEqual({ compiled: 1, direct: 1, fallbacks: {} });
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body).data).toBeTruthy();
    expect(comparable(second)).toEqual(comparable(first));
    expect(await charged(() => post({ query, variables }, headers))).toBe(true);
  });
});

describe('what the direct path leaves to yoga is answered as for a new document', () => {
  const known = 'query List($limit: Int, $filter: String) { entities(limit: $limit, filter: $filter) { data { id name } } }';

  beforeAll(async () => {
    const served = await post({ query: known, variables: { limit: 2 } }, admin.headers);
    expect(served.status).toBe(200);
  });

  /** The request on the known document, then the same on a new spelling of it, and what each moved. */
  async function knownAndNew(variables: Record<string, unknown>, headers: Record<string, string>) {
    let onKnown!: Raw;
    let onNew!: Raw;
    const knownMoved = await compiledReadsMovedBy(app, async () => (onKnown = await post({ query: known, variables }, headers)));
    const newMoved = await compiledReadsMovedBy(app, async () => (onNew = await post({ query: fresh(known), variables }, headers)));
    expect(knownMoved.direct).toBe(0);
    expect(knownMoved).toEqual(newMoved);
    expect(comparable(onKnown)).toEqual(comparable(onNew));
    return { response: onKnown, moved: knownMoved };
  }

  test('a token without the permission: the pipeline refuses it', async () => {
    const { response } = await knownAndNew({ limit: 2 }, newsOnly.headers);
    expect(response.body).toContain('FORBIDDEN');
  });

  test('no token: refused before anything is read', async () => {
    const { response } = await knownAndNew({ limit: 2 }, { 'User-Agent': 'tests/1.0 (t@example.com)' });
    expect(response.body).toContain('VALIDATION_ERROR');
    expect(response.body).not.toContain('"data":{');
  });

  test('a page over the fan-out limit', async () => {
    const { response } = await knownAndNew({ limit: 6_000 }, admin.headers);
    expect(response.body).toContain('fan-out');
  });

  test('variables that fail coercion', async () => {
    const { response, moved } = await knownAndNew({ limit: 'two' }, admin.headers);
    expect(moved.fallbacks).toEqual({ invalid_variables: 1 });
    expect(response.body).toContain('errors');
  });

  test('a filter the resolvers word, counted as one fallback', async () => {
    const { response, moved } = await knownAndNew({ limit: 2, filter: 'nmae:x' }, admin.headers);
    expect(moved.fallbacks).toEqual({ invalid_arguments: 1 });
    expect(response.body).toContain('UNKNOWN_FILTER');
  });

  test('the rate limit is charged once for a request the direct path hands on', async () => {
    expect(await charged(() => post({ query: known, variables: { limit: 'two' } }, admin.headers))).toBe(true);
  });
});

test('a read the database fails is read once and answered as for a new document', async () => {
  const query = fresh('{ entities(limit: 2) { data { id name } } }');
  expect((await post({ query }, admin.headers)).status).toBe(200);
  failing = true;
  try {
    const reads = preparedReads;
    let onKnown!: Raw;
    const moved = await compiledReadsMovedBy(app, async () => (onKnown = await post({ query }, admin.headers)));
    expect(preparedReads - reads).toBe(1);
    expect(moved).toEqual({ compiled: 1, direct: 0, fallbacks: {} });
    expect(onKnown.body).toContain('SERVICE_UNAVAILABLE');
    const onNew = await post({ query: fresh(query) }, admin.headers);
    expect(preparedReads - reads).toBe(2);
    expect(comparable(onKnown)).toEqual(comparable(onNew));
  } finally {
    failing = false;
  }
});
