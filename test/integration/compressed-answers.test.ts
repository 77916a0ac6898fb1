// The compressed forms of read answers, kept so the same answer is compressed once (src/http/compressed-answers.ts),
// over HTTP on the demo data set: what is reused is exactly what a fresh compression would send, a changed
// record is never answered from an old form, and an answer to a write is never kept.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { rawRequest, type RawResponse } from '../helpers/raw-http.ts';

let app: TestApp;
let auth: TestCredentials;
let entityId: number;

beforeAll(async () => {
  app = await startTestApp({ demo: true });
  auth = await createApiKeyAndToken(app);
  const [row] = await app.db.sql.query<{ id: number }>(`SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY length(tagline) + length(image) + length(platform_url) DESC, id LIMIT 1`);
  entityId = row!.id;
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const header = (response: RawResponse, name: string) => response.headers.find(([key]) => key.toLowerCase() === name)?.[1];

async function counters(): Promise<{ made: number; reused: number }> {
  const text = await (await app.fetch('/metrics')).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { made: value('compressed_answers_made_total'), reused: value('compressed_answers_reused_total') };
}

/** What `work` moved the two counters by. */
async function moved(work: () => Promise<unknown>): Promise<{ made: number; reused: number }> {
  const before = await counters();
  await work();
  const after = await counters();
  return { made: after.made - before.made, reused: after.reused - before.reused };
}

const get = (path: string, encoding?: string) =>
  rawRequest(`${app.url}${path}`, { headers: { ...auth.headers, ...(encoding ? { 'accept-encoding': encoding } : {}) } });

const graphql = (query: string, encoding = 'gzip') =>
  rawRequest(`${app.url}/graphql`, {
    method: 'POST',
    headers: { ...auth.headers, 'content-type': 'application/json', 'accept-encoding': encoding },
    body: JSON.stringify({ query }),
  });

describe('a read answered again', () => {
  it('sends the kept compressed form, byte for byte what compressing the same body gives, under the same ETag', async () => {
    const path = `/api/entities/${entityId}`;
    const plain = await get(path);
    expect(plain.bytes.length).toBeGreaterThan(1024);
    let first!: RawResponse;
    let second!: RawResponse;
    expect(await moved(async () => (first = await get(path, 'gzip')))).toEqual({ made: 1, reused: 0 });
    expect(await moved(async () => (second = await get(path, 'gzip')))).toEqual({ made: 0, reused: 1 });
    expect(header(second, 'content-encoding')).toBe('gzip');
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(gunzipSync(second.bytes).equals(plain.bytes)).toBe(true);
    expect(header(second, 'etag')).toBe(header(plain, 'etag'));
    expect(header(second, 'content-length')).toBe(String(second.bytes.length));
  });

  it('keeps one form per encoding', async () => {
    const path = '/api/entities?sort=-total_funding_usd&limit=50';
    const plain = await get(path);
    await get(path, 'gzip');
    let brotli!: RawResponse;
    expect(await moved(async () => (brotli = await get(path, 'br')))).toEqual({ made: 1, reused: 0 });
    expect(await moved(() => get(path, 'br'))).toEqual({ made: 0, reused: 1 });
    expect(brotliDecompressSync(brotli.bytes).equals(plain.bytes)).toBe(true);
  });

  it('answers a record that changed with its new body, never an old form', async () => {
    const path = `/api/entities/${entityId}`;
    await get(path, 'gzip');
    const tagline = `Changed at ${Date.now()}: ${'a tagline long enough to matter '.repeat(3)}`;
    await app.db.sql.query('UPDATE entities SET tagline = $1 WHERE id = $2', [tagline, entityId]);
    let changed!: RawResponse;
    expect(await moved(async () => (changed = await get(path, 'gzip')))).toEqual({ made: 1, reused: 0 });
    expect((JSON.parse(gunzipSync(changed.bytes).toString('utf8')) as { data: { tagline: string } }).data.tagline).toBe(tagline);
  });

  it('keeps a GraphQL query sent by POST as it keeps a GET', async () => {
    const query = '{ entities(limit: 25, sort: "-total_funding_usd") { data { id name tagline hq_country hq_city total_funding_usd } } }';
    let first!: RawResponse;
    expect(await moved(async () => (first = await graphql(query)))).toEqual({ made: 1, reused: 0 });
    let again!: RawResponse;
    expect(await moved(async () => (again = await graphql(query)))).toEqual({ made: 0, reused: 1 });
    expect(again.bytes.equals(first.bytes)).toBe(true);
    const answer = JSON.parse(gunzipSync(again.bytes).toString('utf8')) as { data: { entities: { data: unknown[] } } };
    expect(answer.data.entities.data).toHaveLength(25);
  });
});

describe('an answer to a write', () => {
  it('is compressed for the client but not kept: it holds secrets shown once', async () => {
    const creations = Array.from({ length: 8 }, (_, index) => `k${index}: createApiKey(name: "kept-${index}", permissions: ["read:entities"]) { id client_id client_secret name permissions }`);
    let response!: RawResponse;
    expect(await moved(async () => (response = await graphql(`mutation { ${creations.join(' ')} }`)))).toEqual({ made: 0, reused: 0 });
    expect(header(response, 'content-encoding')).toBe('gzip');
    const answer = JSON.parse(gunzipSync(response.bytes).toString('utf8')) as { data: Record<string, { client_secret: string }> };
    expect(Object.values(answer.data).every((key) => key.client_secret.length > 20)).toBe(true);
  });
});

describe('COMPRESSION_CACHE_MB=0', () => {
  it('compresses every answer anew and keeps nothing', async () => {
    const bare = await startTestApp({ db: app.db, env: { COMPRESSION_CACHE_MB: '0' } });
    try {
      const credentials = await createApiKeyAndToken(bare);
      const path = '/api/entities?sort=-total_funding_usd&limit=50';
      const answers = [];
      for (let round = 0; round < 2; round += 1) answers.push(await rawRequest(`${bare.url}${path}`, { headers: { ...credentials.headers, 'accept-encoding': 'gzip' } }));
      expect(answers.map((answer) => header(answer, 'content-encoding'))).toEqual(['gzip', 'gzip']);
      expect(answers[1]!.bytes.equals(answers[0]!.bytes)).toBe(true);
      expect(await (await bare.fetch('/metrics')).text()).not.toMatch(/compressed_answers_/);
    } finally {
      await bare.close();
    }
  });
});
