// Body limits (docs/read-api.md, "Body limits"): every JSON body of /api and /graphql is bounded in
// depth and in values before anything recurses over it, and what the body reader cannot read (a
// Content-Encoding it does not know, bytes that do not decompress) is the client's 400 in the error
// envelope, never a 500. Each refused body changes nothing.
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../../src/http/json-body.ts';
import { routes } from '../../src/rest/routes.ts';
import { declaredResources } from '../../src/schema/resource.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { managementState as stateOf } from '../helpers/management-state.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

/** What a management write could have changed: every management table, whole. */
const managementState = () => stateOf(app);

/** `{"a":{"a":...1...}}`, `depth` objects deep, as text (JSON.stringify itself would recurse). */
const deepObject = (depth: number, leaf = '1'): string => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
const deepArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** Every REST route that takes a body, with its path's parameters filled in (ids 1, slugs `x`). */
const bodyRoutes = declaredResources().flatMap((resource) =>
  (resource.rest ?? [])
    .filter((row) => row.body)
    .map((row) => ({ method: row.method, path: row.path.replace(/\{(\w+)\}/g, (_, name: string) => (row.textParams?.[name] ? 'x' : '1')) })),
);

interface ErrorBody {
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

/**
 * The refusal: the error envelope of /api, or on /graphql the GraphQL form of the same error
 * (`errors[0]`, code and details in `extensions`), never the envelope (docs/graphql-errors.md).
 */
async function envelope(response: Response): Promise<{ status: number; code: string | undefined; paths: string[]; message: string }> {
  const text = await response.text();
  const body = JSON.parse(text) as { error?: ErrorBody; errors?: { message: string; extensions?: Omit<ErrorBody, 'message'> }[] };
  const graphql = body.errors?.[0];
  if (response.url.includes('/graphql')) expect(body.error).toBeUndefined();
  const error: ErrorBody | undefined = body.error ?? (graphql && { message: graphql.message, code: graphql.extensions?.code ?? '', details: graphql.extensions?.details });
  return {
    status: response.status,
    code: error?.code,
    paths: (error?.details ?? []).map((detail) => detail.path),
    message: (error?.details ?? []).map((detail) => detail.message).join('; '),
  };
}

/** Compressed bytes as a fetch body. */
const bytes = (buffer: Buffer): Uint8Array<ArrayBuffer> => new Uint8Array(buffer);

const post = (path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}, method = 'POST') =>
  auth.fetch(path, { method, headers: { 'content-type': 'application/json', ...headers }, body });

describe('nesting', () => {
  it('covers every REST route with a body', () => {
    expect(bodyRoutes.length).toBe(routes.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method)).length);
    expect(bodyRoutes.length).toBeGreaterThanOrEqual(10);
  });

  it.each(bodyRoutes.flatMap((route) => [4_000, 10_000].map((depth) => [route.method, route.path, depth] as const)))(
    '%s %s: a body %i levels deep is 400 on body, and changes nothing',
    async (method, path, depth) => {
      const before = await managementState();
      for (const body of [deepObject(depth), deepArray(depth), `{"name":"x","nmae":${deepObject(depth)}}`]) {
        const answer = await envelope(await post(path, body, {}, method));
        expect(answer).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body'] });
        expect(answer.message).toContain(`at most ${BODY_LIMITS.maxDepth} levels deep`);
      }
      expect(await managementState()).toBe(before);
    },
  );

  it.each([4_000, 10_000])('/graphql: variables %i levels deep are 400 as a GraphQL error', async (depth) => {
    const before = await managementState();
    const bodies = [
      `{"query":"mutation($t: JSON) { createEcosystem(slug: \\"deep\\", name: \\"d\\", filter: \\"is_company:true\\", tabs_config: $t) { id } }","variables":{"t":${deepObject(depth)}}}`,
      `{"query":"{ __typename }","variables":{"v":${deepArray(depth)}}}`,
      `{"query":"{ __typename }","extensions":${deepObject(depth)}}`,
      deepArray(depth),
    ];
    for (const body of bodies) {
      const answer = await envelope(await post('/graphql', body));
      expect(answer).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body'] });
    }
    expect(await managementState()).toBe(before);
  });

  it('a GET /graphql with deep variables in the query string is a 4xx, never a 5xx', async () => {
    // Brackets travel unescaped in a query string: 5,000 levels in 10 kB.
    const query = encodeURIComponent('query($v: String) { entities(filter: $v, limit: 1) { page { limit } } }');
    const response = await auth.fetch(`/graphql?query=${query}&variables=${encodeURIComponent('{"v":')}${deepArray(5_000)}}`, {
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it(`takes a body ${BODY_LIMITS.maxDepth} levels deep to the endpoint, and refuses one level more`, async () => {
    // An unknown field holds the nesting, so the endpoint's own answer names it.
    const within = await envelope(await post('/api/teams', `{"name":"t","slug":"t","extra":${deepObject(BODY_LIMITS.maxDepth - 1)}}`));
    expect(within).toMatchObject({ status: 400, paths: ['body.extra'] });
    const beyond = await envelope(await post('/api/teams', `{"name":"t","slug":"t","extra":${deepObject(BODY_LIMITS.maxDepth)}}`));
    expect(beyond).toMatchObject({ status: 400, paths: ['body'] });
    expect(beyond.message).toContain('levels deep');
  });
});

describe('width', () => {
  it(`refuses a body of more than ${BODY_LIMITS.maxValues.toLocaleString('en')} values with 400 on body, on /api and /graphql`, async () => {
    const wide = `[${'0,'.repeat(BODY_LIMITS.maxValues)}0]`;
    expect(wide.length).toBeLessThan(1024 * 1024);
    const before = await managementState();
    const rest = await envelope(await post('/api/landscapes/1/entities', `{"entity_ids":${wide}}`, {}, 'PUT'));
    expect(rest).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body'] });
    expect(rest.message).toContain('values');
    const graphql = await envelope(await post('/graphql', `{"query":"{ __typename }","variables":{"v":${wide}}}`));
    expect(graphql).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body'] });
    const keys = `{${Array.from({ length: BODY_LIMITS.maxValues + 1 }, (_, index) => `"${index.toString(36)}":0`).join(',')}}`;
    expect(keys.length).toBeLessThan(1024 * 1024);
    const object = await envelope(await post('/api/ecosystems', keys));
    expect(object).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body'] });
    expect(await managementState()).toBe(before);
  });

  it('answers a body of many unknown fields with a bounded list of details', async () => {
    const keys = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`k${index}`, 0]));
    const answer = await envelope(await post('/api/teams', JSON.stringify({ name: 'n', slug: 'n', ...keys })));
    expect(answer.status).toBe(400);
    expect(answer.paths.length).toBeLessThanOrEqual(51);
    expect(answer.paths[0]).toBe('body.k0');
    expect(answer.message).toMatch(/and \d+ more problems/);
  });
});

describe('__proto__ keys', () => {
  it.each(bodyRoutes.map((route) => [route.method, route.path] as const))('%s %s: a "__proto__" key is 400 naming it', async (method, path) => {
    const before = await managementState();
    const answer = await envelope(await post(path, '{"__proto__":{"name":"x"},"name":"x"}', {}, method));
    expect(answer).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body.__proto__'] });
    const nested = await envelope(await post(path, '{"tabs_config":{"a":[{"__proto__":{"polluted":true}}]}}', {}, method));
    expect(nested).toMatchObject({ status: 400, paths: ['body.tabs_config.a.0.__proto__'] });
    expect(await managementState()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('in GraphQL variables is 400 as a GraphQL error', async () => {
    const answer = await envelope(await post('/graphql', '{"query":"{ __typename }","variables":{"__proto__":{"x":1}}}'));
    expect(answer).toMatchObject({ status: 400, paths: ['body.variables.__proto__'] });
  });
});

describe('Content-Encoding', () => {
  const notGzip = new TextEncoder().encode('{"name":"plain","slug":"plain"}');

  it.each([
    ['/graphql', 'POST'],
    ['/api/teams', 'POST'],
    ['/api/ecosystems/1', 'PATCH'],
    ['/api/landscapes/1/entities', 'PUT'],
  ])('%s: a body that is not what its Content-Encoding says is 400', async (path, method) => {
    const before = await managementState();
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const answer = await envelope(await post(path, notGzip, { 'content-encoding': encoding }, method));
      expect(answer).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body'] });
      expect(answer.message).toContain(`Content-Encoding: ${encoding}`);
    }
    // Cut short: the gzip header, then nothing.
    const truncated = await envelope(await post(path, bytes(gzipSync(notGzip).subarray(0, 12)), { 'content-encoding': 'gzip' }, method));
    expect(truncated).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['body'] });
    expect(await managementState()).toBe(before);
  });

  it.each(['compress', 'zstd', 'x-unknown', 'gzip, gzip'])('an unsupported Content-Encoding, %s, is 400 on the header', async (encoding) => {
    for (const path of ['/graphql', '/api/teams']) {
      const answer = await envelope(await post(path, notGzip, { 'content-encoding': encoding }));
      expect(answer).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['header.content-encoding'] });
    }
  });

  it('an unsupported charset is 400 on the Content-Type header', async () => {
    const answer = await envelope(await post('/api/teams', notGzip, { 'content-type': 'application/json; charset=latin1' }));
    expect(answer).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', paths: ['header.content-type'] });
  });

  it('the token endpoint answers a body it cannot decompress with 400 in the envelope', async () => {
    for (const encoding of ['gzip', 'br', 'zstd']) {
      const response = await app.fetch('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': encoding },
        body: 'grant_type=client_credentials&client_id=a&client_secret=b',
      });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('still reads compressed bodies that decompress', async () => {
    const query = JSON.stringify({ query: '{ entities(limit: 1) { page { limit } } }' });
    for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
      const response = await post('/graphql', bytes(compress(query)), { 'content-encoding': encoding });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { entities: { page: { limit: 1 } } } });
    }
    const created = await post('/api/teams', bytes(gzipSync(JSON.stringify({ name: 'Zipped', slug: 'zipped' }))), { 'content-encoding': 'gzip' });
    expect(created.status).toBe(201);
  });

  it('a compressed body over 1 MiB once decompressed is 413', async () => {
    const bomb = gzipSync(JSON.stringify({ query: '{ __typename }', extensions: { pad: 'x'.repeat(4 * 1024 * 1024) } }));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const answer = await envelope(await post('/graphql', bytes(bomb), { 'content-encoding': 'gzip' }));
    expect(answer).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });
});

it('leaves the server ready, with nothing logged as an unexpected error', async () => {
  expect((await app.fetch('/readyz')).status).toBe(200);
  const errors = app.logs.filter((line) => JSON.parse(line).level >= 50);
  expect(errors).toEqual([]);
});
