// What a newcomer meets first, over HTTP: `GET /`, discovery documents, compression, caching, CORS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

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
