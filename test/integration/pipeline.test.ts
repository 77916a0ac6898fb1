/**
 * Every form of request takes the one pipeline (src/http/front.ts) and gets the same answer for it:
 * plain, conditional, compressed, from a browser on a CORS deployment, REST and GraphQL. Run against a
 * real server with node's own HTTP client, which sends exactly the headers given.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { rawRequest, type RawResponse } from '../helpers/raw-http.ts';

const ORIGIN = 'https://app.example.com';
let db: TestDatabase;
let app: TestApp;
let admin: TestCredentials;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 30 });
  app = await startTestApp({ db, env: { CORS_ORIGINS: ORIGIN } });
  admin = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

const header = (response: RawResponse, name: string): string | undefined =>
  response.headers.filter(([key]) => key.toLowerCase() === name).map(([, value]) => value).join(', ') || undefined;
const get = (path: string, headers: Record<string, string> = {}) => rawRequest(`${app.url}${path}`, { headers: { ...admin.headers, ...headers } });
const post = (query: string, headers: Record<string, string> = {}) =>
  rawRequest(`${app.url}/graphql`, { method: 'POST', headers: { ...admin.headers, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
const metric = async (name: string): Promise<number> => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await (await app.fetch('/metrics')).text())?.[1] ?? NaN);

describe('a conditional GET', () => {
  it.each(['/api/entities/1', '/api/entities?limit=5&sort=name'])("of %s with the answer's own ETag is 304 without a body", async (path) => {
    const first = await get(path);
    expect(first.status).toBe(200);
    const again = await get(path, { 'If-None-Match': header(first, 'etag')! });
    expect(again.status).toBe(304);
    expect(again.bytes).toHaveLength(0);
    expect(header(again, 'etag')).toBe(header(first, 'etag'));
    // Still one request of the client's: counted, rate limited.
    expect(header(again, 'ratelimit-limit')).toBeDefined();
  });

  it("from fetch, which adds Cache-Control: no-cache to a request with If-None-Match, is 304 too", async () => {
    const first = await app.fetch('/api/entities/1', { headers: admin.headers });
    const again = await app.fetch('/api/entities/1', { headers: { ...admin.headers, 'If-None-Match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
    // What fetch sent (the Fetch standard's cache mode for a conditional request), as a browser's does.
    const sent = await get('/api/entities/1', { 'If-None-Match': first.headers.get('etag')!, 'Cache-Control': 'no-cache', Pragma: 'no-cache' });
    expect(sent.status).toBe(304);
  });

  it('that matches nothing, or of an error, is answered in full', async () => {
    expect((await get('/api/entities/1', { 'If-None-Match': '"nothing"' })).status).toBe(200);
    const missing = await get('/api/entities/999999');
    expect((await get('/api/entities/999999', { 'If-None-Match': header(missing, 'etag') ?? '*' })).status).toBe(404);
  });
});

describe('a browser on a CORS deployment', () => {
  it('gets its REST answer compressed, with the CORS headers, Vary on both, the same data', async () => {
    const plain = await get('/api/entities?limit=20');
    const browser = await get('/api/entities?limit=20', { Origin: ORIGIN, 'Accept-Encoding': 'gzip, deflate, br' });
    expect(header(browser, 'access-control-allow-origin')).toBe(ORIGIN);
    expect(header(browser, 'vary')).toBe('Origin, Accept-Encoding');
    expect(header(browser, 'content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(browser.bytes).toString()).data).toEqual(JSON.parse(plain.body).data);
  });

  it('gets its GraphQL answer the same way', async () => {
    const query = '{ entities(limit: 20) { data { id name tagline } } }';
    const plain = await post(query);
    const browser = await post(query, { Origin: ORIGIN, 'Accept-Encoding': 'gzip' });
    expect(browser.status).toBe(200);
    expect(header(browser, 'access-control-allow-origin')).toBe(ORIGIN);
    expect(header(browser, 'content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(browser.bytes).toString())).toEqual(JSON.parse(plain.body));
  });

  it('has its preflight answered for any path, without a token', async () => {
    const preflight = await rawRequest(`${app.url}/graphql`, {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(header(preflight, 'access-control-allow-origin')).toBe(ORIGIN);
  });
});

describe('GraphQL', () => {
  it('answers a document it validated before without parsing it again, with the same answer', async () => {
    const query = '{ entities(limit: 3, sort: "name") { data { id name } } }';
    const first = await post(query);
    const before = await metric('graphql_known_documents_total');
    const again = await post(query);
    expect(await metric('graphql_known_documents_total')).toBe(before + 1);
    expect(again.body).toBe(first.body);
    expect(header(again, 'content-type')).toBe(header(first, 'content-type'));
  });

  it('checks a known document again for each caller and its variables', async () => {
    const query = 'query($limit: Int) { entities(limit: $limit) { data { id } } }';
    expect((await post(query)).status).toBe(200);
    const refused = await rawRequest(`${app.url}/graphql`, {
      method: 'POST',
      headers: { ...admin.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query, variables: { limit: 100_000 } }),
    });
    expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const stranger = await post(query, { Authorization: 'Bearer not-a-token' });
    expect(stranger.status).toBe(401);
  });
});

describe('the order of checks', () => {
  it('reads the token before a path parameter: a bad token and a bad id is 401', async () => {
    const response = await get('/api/entities/%ZZ', { Authorization: 'Bearer not-a-token' });
    expect(response.status).toBe(401);
    expect((await get('/api/entities/%ZZ')).status).toBe(400);
  });
});
