/**
 * POSTs of /graphql read from node:http (src/http/graphql-post.ts): a document served compiled before is
 * answered without express (`http_direct_graphql_requests_total` moves), byte for byte as express's path
 * answers it; every body the front reads but does not serve (not JSON, not an object, a NUL character,
 * too deep, a batch) is answered exactly as express's own body reader and checks answer it, and an answer
 * the client takes compressed is compressed as express's path compresses it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { comparable as comparableResponse, rawRequest, type RawResponse } from '../helpers/raw-http.ts';

let db: TestDatabase;
let app: TestApp;
let admin: TestCredentials;

const KNOWN = '{ entities(limit: 3) { data { id name hq_country } page { next_cursor } } }';

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 30 });
  app = await startTestApp({ db });
  admin = await createApiKeyAndToken(app);
  // Served once through express and yoga: the document is known from now on.
  expect((await post(JSON.stringify({ query: KNOWN }))).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

const post = (body: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
  rawRequest(`${app.url}/graphql`, { method: 'POST', headers: { ...admin.headers, 'Content-Type': 'application/json', 'X-Request-Id': 'same-id', ...headers }, body });

/** A body sent in chunks (no Content-Length) keeps a request on express's path from its first byte. */
const throughExpress = (body: string, headers: Record<string, string> = {}) => post(body, { 'Transfer-Encoding': 'chunked', ...headers });

/** Without what differs by nature (the date, the rate limit's count). */
const comparable = (response: RawResponse) => comparableResponse(response, /^(date|ratelimit-remaining|ratelimit-reset)$/i);

async function servedByTheFront(work: () => Promise<unknown>): Promise<number> {
  const count = async () => Number(/^http_direct_graphql_requests_total (\d+)$/m.exec(await (await app.fetch('/metrics')).text())?.[1]);
  const before = await count();
  await work();
  return (await count()) - before;
}

test('a known document is served from node:http, as express serves it, to the byte', async () => {
  let direct!: RawResponse;
  expect(await servedByTheFront(async () => (direct = await post(JSON.stringify({ query: KNOWN }))))).toBe(1);
  const viaExpress = await throughExpress(JSON.stringify({ query: KNOWN }));
  expect(direct.status).toBe(200);
  expect(JSON.parse(direct.body).data.entities.data).toHaveLength(3);
  expect(comparable(direct)).toEqual(comparable(viaExpress));
});

test('a refusal of the direct path goes to yoga from the front, with the same answer', async () => {
  let refused!: RawResponse;
  const body = JSON.stringify({ query: KNOWN });
  expect(await servedByTheFront(async () => (refused = await post(body, { Authorization: 'Bearer not-a-token' })))).toBe(1);
  const viaExpress = await rawRequest(`${app.url}/graphql`, {
    method: 'POST',
    headers: { ...admin.headers, Authorization: 'Bearer not-a-token', 'Content-Type': 'application/json', 'X-Request-Id': 'same-id', 'Transfer-Encoding': 'chunked' },
    body,
  });
  expect(refused.status).toBe(401);
  expect(comparable(refused)).toEqual(comparable(viaExpress));
});

describe('a body the front reads but does not serve is answered as express answers it', () => {
  const deep = `{"query":"{ entities { data { id } } }","variables":{"a":${'['.repeat(70)}${']'.repeat(70)}}}`;
  test.each([
    ['not JSON', '{"query": '],
    ['JSON, not an object', '"{ entities { data { id } } }"'],
    ['a NUL character', JSON.stringify({ query: KNOWN, variables: { a: 'x\u0000y' } })],
    ['nested beyond the limit', deep],
    ['a "__proto__" key', `{"query":${JSON.stringify(KNOWN)},"variables":{"__proto__":{}}}`],
    ['a batch', JSON.stringify([{ query: KNOWN }])],
    ['an unknown document', JSON.stringify({ query: '{ entities(limit: 1) { data { id } } }' })],
    ['an unknown key', JSON.stringify({ query: KNOWN, extensions: {} })],
  ])('%s', async (_name, body) => {
    let front!: RawResponse;
    expect(await servedByTheFront(async () => (front = await post(body)))).toBe(0);
    expect(comparable(front)).toEqual(comparable(await throughExpress(body)));
  });
});

test.each(['gzip, deflate', 'gzip, deflate, br, zstd', 'identity'])('Accept-Encoding: %s: served from node:http, compressed as express compresses it', async (encoding) => {
  const body = JSON.stringify({ query: '{ entities(limit: 25) { data { id name tagline hq_country hq_city } } }' });
  await post(body);
  let front!: RawResponse;
  expect(await servedByTheFront(async () => (front = await post(body, { 'Accept-Encoding': encoding })))).toBe(1);
  expect(comparable(front)).toEqual(comparable(await throughExpress(body, { 'Accept-Encoding': encoding })));
  const expected = encoding === 'identity' ? undefined : encoding.includes('br') ? 'br' : 'gzip';
  expect(front.headers.find(([name]) => name === 'Content-Encoding')?.[1]).toBe(expected);
});
