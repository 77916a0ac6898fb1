// What a newcomer meets first, over HTTP: `GET /`, discovery documents, compression, caching, CORS.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 60 });
  auth = await createApiKeyAndToken(app);
}, 120_000);

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request whose body is read as sent: fetch() would decompress it behind our back. */
function rawGet(path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    request(`${app.url}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

afterAll(async () => {
  await app.close();
});

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('GET /', () => {
  it('sends a browser to the interactive docs', async () => {
    const response = await app.fetch('/', { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/docs');
    expect(response.headers.get('vary')).toMatch(/accept/i);
  });

  it('answers an API client with links to the docs, the OpenAPI document and GraphQL', async () => {
    for (const accept of ['application/json', '*/*']) {
      const response = await app.fetch('/', { headers: { accept }, redirect: 'manual' });
      expect(response.status, accept).toBe(200);
      const body = (await response.json()) as { links: Record<string, string> };
      expect(body.links).toMatchObject({
        docs: `${app.url}/docs`,
        openapi: `${app.url}/openapi.json`,
        graphql: `${app.url}/graphql`,
      });
    }
  });

  it('refuses other methods with 405', async () => {
    const response = await app.fetch('/', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('discovery', () => {
  it('serves RFC 8414 metadata advertising only the flow that exists', async () => {
    const response = await app.fetch('/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(app.url);
    expect(metadata.token_endpoint).toBe(`${app.url}/oauth/token`);
    expect(metadata.grant_types_supported).toEqual(['client_credentials']);
    expect(metadata.response_types_supported).toEqual([]);
  });

  it('no longer advertises the implicit `token` response type in OpenID discovery', async () => {
    const metadata = (await (await app.fetch('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(metadata.response_types_supported).toEqual([]);
    expect(metadata.token_endpoint).toBe(`${app.url}/oauth/token`);
  });
});

describe('compression and caching', () => {
  it('compresses JSON lists with brotli or gzip, as the client accepts', async () => {
    const path = '/api/entities?limit=60';
    const plain = await rawGet(path, auth.headers);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const brotli = await rawGet(path, { ...auth.headers, 'accept-encoding': 'br' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.body).equals(plain.body)).toBe(true);
    const gzip = await rawGet(path, { ...auth.headers, 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    expect(gzip.body.length).toBeLessThan(plain.body.length / 3);
  });

  it('serves a small GraphiQL page whose bundle is a compressed, immutable, cached asset', async () => {
    const page = await rawGet('/graphql', { accept: 'text/html', 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    const html = gunzipSync(page.body).toString('utf8');
    expect(html.length).toBeLessThan(10_000);
    const assets = [...html.matchAll(/(?:src|href)="(\/graphiql\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.some((asset) => asset.includes('graphiql.js?v='))).toBe(true);
    for (const asset of assets) {
      const response = await rawGet(asset, { 'accept-encoding': 'br, gzip' });
      expect(response.status, asset).toBe(200);
      expect(response.headers['cache-control'], asset).toMatch(/max-age=31536000.*immutable/);
      expect(response.headers['content-encoding'], asset).toBe('br');
    }
  });

  it('caches the docs page assets and compresses them', async () => {
    const html = await (await app.fetch('/docs')).text();
    const bundle = /src="(\/docs\/assets\/swagger-ui-bundle\.js[^"]*)"/.exec(html)?.[1];
    expect(bundle).toBeDefined();
    const response = await rawGet(bundle!, { 'accept-encoding': 'gzip' });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['cache-control']).toMatch(/max-age=31536000.*immutable/);
  });
});

describe('CORS', () => {
  const ORIGIN = 'https://app.example.com';
  const preflight = (target: TestApp, origin: string) =>
    target.fetch('/api/entities', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, x-client-id' },
    });

  it('is off by default: no CORS headers, and OPTIONS is not allowed', async () => {
    const response = await preflight(app, ORIGIN);
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is the same policy on /graphql: off by default, the allowed origins only when set', async () => {
    const ask = (target: TestApp, origin: string) =>
      target.fetch('/graphql', { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    const graphqlPreflight = (target: TestApp, origin: string) =>
      target.fetch('/graphql', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    expect((await ask(app, ORIGIN)).headers.get('access-control-allow-origin')).toBeNull();
    expect((await graphqlPreflight(app, ORIGIN)).headers.get('access-control-allow-origin')).toBeNull();
    const withCors = await startTestApp({ db: app.db, env: { CORS_ORIGINS: ORIGIN } });
    try {
      expect((await ask(withCors, ORIGIN)).headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect((await graphqlPreflight(withCors, ORIGIN)).headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect((await ask(withCors, 'https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
      expect((await graphqlPreflight(withCors, 'https://evil.example.net')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await withCors.close();
    }
  });

  it('answers preflights and requests from allowed origins only', async () => {
    const withCors = await startTestApp({ db: app.db, env: { CORS_ORIGINS: `${ORIGIN}, https://other.example.com` } });
    try {
      const allowed = await preflight(withCors, ORIGIN);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-client-id');
      expect(allowed.headers.get('access-control-allow-methods')).toContain('GET');

      // A token of its own: the token's audience is the app's address.
      const local = await createApiKeyAndToken(withCors);
      const actual = await withCors.fetch('/api/entities?limit=1', { headers: { ...local.headers, origin: ORIGIN } });
      expect(actual.status).toBe(200);
      expect(actual.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(actual.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining');

      const stranger = await preflight(withCors, 'https://evil.example.net');
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await withCors.close();
    }
  });

  it('refuses a malformed origin at start-up, naming the variable', async () => {
    await expect(startTestApp({ db: app.db, env: { CORS_ORIGINS: 'app.example.com/path' } })).rejects.toThrow(/CORS_ORIGINS/);
  });
});
