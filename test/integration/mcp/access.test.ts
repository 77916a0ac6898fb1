/**
 * /mcp's access as /api's: a request without a token is a 401 pointing at the protected resource
 * metadata (RFC 9728), which points at our token endpoint (and the identity provider when one is set);
 * a tool without the permission is a FORBIDDEN tool error; every request counts in usage, a tool call
 * under its tool's name (a failed one as an error), and draws on the rate limit like any request.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, TEST_USER_AGENT, type TestCredentials } from '../../helpers/auth.ts';
import { seriesTotals, waitForSeries } from '../usage/support.ts';
import { callTool, connectMcp, errorText } from './support.ts';

let app: TestApp;
const clients: Client[] = [];

beforeAll(async () => {
  app = await startTestApp({ env: { USAGE_FLUSH_INTERVAL_MS: '100' } });
  await seedDatabase(app.db, { entities: 30 });
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await app?.close();
});

async function connect(credentials: TestCredentials): Promise<Client> {
  const client = await connectMcp(app, credentials.headers);
  clients.push(client);
  return client;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

function post(headers: Record<string, string>, target: TestApp = app): Promise<Response> {
  return target.fetch('/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(INITIALIZE),
  });
}

describe('authentication', () => {
  it('without a token: 401 whose WWW-Authenticate names the protected resource metadata', async () => {
    const response = await post({ 'User-Agent': TEST_USER_AGENT });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('with an invalid token: 401 invalid_token, with the metadata too', async () => {
    const response = await post({ Authorization: 'Bearer not.a.token', 'User-Agent': TEST_USER_AGENT, 'X-Client-Id': 'someone' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("the SDK's client cannot connect without a token", async () => {
    await expect(connectMcp(app, { 'User-Agent': TEST_USER_AGENT })).rejects.toThrow(/UNAUTHORIZED/);
  });

  it('the headers /api requires are required here too (400 without X-Client-Id)', async () => {
    const credentials = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const { 'X-Client-Id': _omitted, ...headers } = credentials.headers;
    const response = await post(headers);
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('header.x-client-id');
  });

  it('GET and DELETE: 405 (stateless: no stream, no session)', async () => {
    const response = await app.fetch('/mcp', { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('names the resource and our authorization server, whose metadata names the token endpoint', async () => {
    const response = await app.fetch('/.well-known/oauth-protected-resource/mcp');
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as { resource: string; authorization_servers: string[]; bearer_methods_supported: string[] };
    expect(metadata).toMatchObject({ resource: `${app.url}/mcp`, authorization_servers: [app.url], bearer_methods_supported: ['header'] });
    const server = (await (await fetch(`${metadata.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json()) as { token_endpoint: string };
    expect(server.token_endpoint).toBe(`${app.url}/oauth/token`);
  });

  it('adds the external identity provider when one is configured', async () => {
    const withIdp = await startTestApp({ db: app.db, env: { OIDC_ISSUER: 'https://idp.example.com/' } });
    try {
      const metadata = (await (await withIdp.fetch('/.well-known/oauth-protected-resource/mcp')).json()) as { authorization_servers: string[] };
      expect(metadata.authorization_servers).toEqual([withIdp.url, 'https://idp.example.com/']);
    } finally {
      await withIdp.close();
    }
  });
});

describe('permissions', () => {
  it('a tool without the permission is a FORBIDDEN tool error naming it; others still answer', async () => {
    const client = await connect(await createApiKeyAndToken(app, { permissions: ['read:entities'] }));
    expect(errorText(await callTool(client, 'search_founders', {}))).toMatch(/^FORBIDDEN \(403\): .*read:founders/);
    expect(errorText(await callTool(client, 'get_record', { resource: 'news', id: 1 }))).toContain('read:news');
    expect(errorText(await callTool(client, 'describe_filters', { resource: 'founders' }))).toContain('FORBIDDEN');
    await expect(client.readResource({ uri: 'venture-data://fields/founders' })).rejects.toThrow(/read:founders/);
    const allowed = await callTool(client, 'search_entities', { limit: 2 });
    expect(allowed.isError).toBeFalsy();
  });
});

describe('resources', () => {
  it('the filter grammar and each resource\'s field list', async () => {
    const credentials = await createApiKeyAndToken(app);
    const client = await connect(credentials);
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(uris).toEqual(['venture-data://filter-grammar', ...['entities', 'founders', 'investors', 'transactions', 'valuations', 'news'].map((name) => `venture-data://fields/${name}`)]);
    const grammar = await client.readResource({ uri: 'venture-data://filter-grammar' });
    expect(grammar.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: readFileSync(new URL('../../../src/filter/grammar.md', import.meta.url), 'utf8') });
    const fields = await client.readResource({ uri: 'venture-data://fields/transactions' });
    const expected = (await (await credentials.fetch('/api/filters/transactions')).json()) as { data: unknown };
    expect(JSON.parse((fields.contents[0] as { text: string }).text)).toEqual(expected.data);
  });
});

describe('usage and rate limits', () => {
  it('counts each request, a tool call as POST /mcp <tool>, a failed one as an error, its reads not again', async () => {
    const credentials = await createApiKeyAndToken(app, { permissions: ['read:entities', 'read:usage'] });
    const client = await connect(credentials);
    expect((await callTool(client, 'search_entities', { limit: 1 })).isError).toBeFalsy();
    expect(errorText(await callTool(client, 'search_entities', { filter: 'nope:1' }))).toContain('UNKNOWN_FILTER');
    expect(errorText(await callTool(client, 'search_news', {}))).toContain('FORBIDDEN');
    expect((await callTool(client, 'describe_filters', { resource: 'entities' })).isError).toBeFalsy();
    const day = new Date().toISOString().slice(0, 10);
    const rows = await waitForSeries(credentials, `start_date=${day}&end_date=${day}`, (series) => {
      const totals = seriesTotals(series);
      return totals.get('POST /mcp search_entities')?.requests === 2 && totals.has('POST /mcp describe_filters');
    });
    const totals = seriesTotals(rows);
    expect(totals.get('POST /mcp search_entities')).toEqual({ requests: 2, errors: 1 });
    expect(totals.get('POST /mcp search_news')).toEqual({ requests: 1, errors: 1 });
    expect(totals.get('POST /mcp describe_filters')).toEqual({ requests: 1, errors: 0 });
    // initialize and the initialized notification
    expect(totals.get('POST /mcp')).toEqual({ requests: 2, errors: 0 });
    expect([...totals.keys()].filter((endpoint) => endpoint.startsWith('GET /api/entities') || endpoint.startsWith('GET /api/filters'))).toEqual([]);
  });

  it('each request draws on the rate limit: over it, 429 with Retry-After', async () => {
    const limited = await startTestApp({ db: app.db, env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '4' } });
    try {
      const credentials = await createApiKeyAndToken(limited, { permissions: ['read:entities'] });
      const client = await connectMcp(limited, credentials.headers);
      // A burst of 4 refilled at 1/s: initialize and its notification took 2, so a few calls empty it.
      let refusal: unknown;
      for (let calls = 0; calls < 8 && !refusal; calls++) {
        refusal = await callTool(client, 'search_entities', { limit: 1 }).then(() => undefined, (error: unknown) => error);
      }
      expect(String(refusal)).toContain('RATE_LIMITED');
      let response = await post(credentials.headers, limited);
      if (response.status !== 429) response = await post(credentials.headers, limited);
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      await client.close();
    } finally {
      await limited.close();
    }
  });
});
