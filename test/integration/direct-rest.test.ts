/**
 * GETs of /api that need nothing of express's own are served from node:http directly
 * (src/http/direct-rest.ts). Proved twice: the counter only that path increments
 * (`http_direct_rest_requests_total`) moves for them and for nothing else, and their responses are
 * express's to the byte, status line and headers included, compressed or not, compared with the same
 * request sent with an If-None-Match that matches nothing (which express must serve, and answers 200 as
 * usual).
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { comparable as comparableResponse, rawRequest, type RawResponse } from '../helpers/raw-http.ts';

let db: TestDatabase;
let app: TestApp;
let admin: TestCredentials;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 30 });
  app = await startTestApp({ db });
  admin = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

type Raw = RawResponse;

const raw = (path: string, headers: Record<string, string>, method = 'GET'): Promise<Raw> => rawRequest(`${app.url}${path}`, { method, headers });

async function directCount(): Promise<number> {
  const text = await (await app.fetch('/metrics')).text();
  return Number(/^http_direct_rest_requests_total (\d+)$/m.exec(text)?.[1] ?? NaN);
}

/** The response, whether the direct path served it, and the same request served by express. */
async function bothPaths(path: string, extra: Record<string, string> = {}): Promise<{ direct: Raw; express: Raw; servedDirectly: number }> {
  const headers = { ...admin.headers, 'X-Request-Id': 'same-id', ...extra };
  const before = await directCount();
  const direct = await raw(path, headers);
  const servedDirectly = (await directCount()) - before;
  const express = await raw(path, { ...headers, 'If-None-Match': '"matches-nothing"' });
  return { direct, express, servedDirectly };
}

/** Headers that differ between two requests by nature: the date, and the rate limit's remaining count. */
const comparable = (response: Raw) => comparableResponse(response, /^(date|ratelimit-remaining)$/i);

test.each([
  '/api/entities?limit=3&sort=-total_funding_usd',
  '/api/entities?limit=2&include_total=true&fields=name',
  '/api/entities/1',
  '/api/entities/999999',
  '/api/entities/abc',
  '/api/entities?filter=nme:x',
  '/api/entities?limt=3',
  '/api/founders?limit=2',
  '/api/api-keys',
  '/api/no-such-thing',
])('%s: served directly, exactly as express serves it', async (path) => {
  const { direct, express, servedDirectly } = await bothPaths(path);
  expect(servedDirectly).toBe(1);
  expect(comparable(direct)).toEqual(comparable(express));
  expect(direct.headers.map(([name]) => name)).toEqual(expect.arrayContaining(['X-Request-Id', 'Content-Type', 'Content-Length', 'ETag']));
});

test('refusals before the read are the same too: no token, a wrong client id', async () => {
  const refused: Record<string, string>[] = [
    { 'User-Agent': 'x/1', 'X-Request-Id': 'same-id' },
    { ...admin.headers, 'X-Client-Id': 'other', 'X-Request-Id': 'same-id' },
  ];
  for (const headers of refused) {
    const before = await directCount();
    const direct = await raw('/api/entities/1', headers);
    expect((await directCount()) - before).toBe(1);
    const express = await raw('/api/entities/1', { ...headers, 'If-None-Match': '"x"' });
    expect(comparable(direct)).toEqual(comparable(express));
    expect(direct.status).toBe(400);
  }
});

// What real clients send: node's fetch and Python's requests (gzip, deflate), browsers (br first), curl
// --compressed, a client that names identity only.
const ENCODINGS = ['gzip, deflate', 'gzip, deflate, br, zstd', 'br', 'deflate', 'identity'];
const DECODE: Record<string, (bytes: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync, deflate: inflateSync };

test.each(ENCODINGS.flatMap((encoding) => ['/api/entities?limit=10', '/api/entities/1', '/api/entities/abc'].map((path) => [encoding, path])))(
  'Accept-Encoding: %s, %s: served directly, compressed exactly as express compresses it',
  async (encoding, path) => {
    const { direct, express, servedDirectly } = await bothPaths(path, { 'Accept-Encoding': encoding });
    expect(servedDirectly).toBe(1);
    expect(comparable(direct)).toEqual(comparable(express));
    const plain = await raw(path, { ...admin.headers });
    const contentEncoding = direct.headers.find(([name]) => name === 'Content-Encoding')?.[1];
    // Compressed from 1 KiB (a page of ten entities), as the middleware decides; every answer varies by it.
    expect(contentEncoding !== undefined).toBe(plain.bytes.length >= 1024 && encoding !== 'identity');
    expect(direct.headers).toContainEqual(['Vary', 'Accept-Encoding']);
    const decoded = contentEncoding ? DECODE[contentEncoding]!(direct.bytes) : direct.bytes;
    expect(JSON.parse(decoded.toString('utf8'))).toEqual(JSON.parse(plain.body));
  },
);

test.each([
  ['a conditional request', { 'If-None-Match': '"x"' }],
  ['CSV by Accept', { Accept: 'text/csv' }],
])('%s goes to express', async (_, extra) => {
  const before = await directCount();
  const response = await raw('/api/entities?limit=2', { ...admin.headers, ...extra });
  expect(response.status).toBe(200);
  expect((await directCount()) - before).toBe(0);
});

test('CSV by format=, other methods and other paths go to express', async () => {
  const before = await directCount();
  expect((await raw('/api/entities?limit=2&format=csv', admin.headers)).status).toBe(200);
  expect((await raw('/api/api-keys', admin.headers, 'POST')).status).toBe(400);
  expect((await raw('/healthz', {})).status).toBe(200);
  expect((await directCount()) - before).toBe(0);
});

test('a request served directly is counted in metrics by its route template, and in the access log', async () => {
  await raw('/api/entities/2', { ...admin.headers, 'X-Request-Id': 'direct-log-check' });
  const text = await (await app.fetch('/metrics')).text();
  expect(text).toMatch(/http_request_duration_seconds_count\{endpoint="GET \/api\/entities\/\{id\}",status="200"\} [1-9]/);
  expect(app.logs.join('')).toMatch(/"requestId":"direct-log-check"[^\n]*"path":"\/api\/entities\/2"[^\n]*"status":200/);
});
