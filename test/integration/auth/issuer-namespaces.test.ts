// Identities from different issuers never meet (docs/auth.md, "Issuers"): a real second issuer (a local
// JWKS server, as in external-issuer.test.ts) signs tokens whose `sub` is `<one of our client ids>@clients`,
// whose `azp` is one of our client ids, or whose `sub` equals a local user id. None of them owns, lists,
// revokes, is counted as or is rate-limited as the local key or user; their usage is kept under
// `<client>@<issuer host>`. And our own tokens cannot take a name in the external issuer's namespace.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import {
  ALL_PERMISSIONS,
  authHeaders,
  createApiKeyAndToken,
  createTestApiKey,
  createUserToken,
  type TestCredentials,
} from '../../helpers/auth.ts';
import { seriesTotals, waitForSeries, type UsageRow } from '../usage/support.ts';

const AUDIENCE = 'https://api.venture.example';
const ORG = 'acme';

let idp: Server;
let issuer: string;
/** How the issuer is written in ids: its host (and path, none here). */
let label: string;
let idpKey: CryptoKey;
let app: TestApp;
/** A local administrator key of the same organisation (every permission), with a token. */
let victim: TestCredentials;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  idpKey = pair.privateKey;
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }] };
  idp = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', () => resolve()));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/`;
  label = new URL(issuer).host;
  app = await startTestApp({
    env: { OIDC_ISSUER: issuer, OIDC_JWKS_URL: `${issuer}keys`, OIDC_AUDIENCE: AUDIENCE, USAGE_FLUSH_INTERVAL_MS: '200' },
  });
  victim = await createApiKeyAndToken(app, { org: ORG, name: 'victim' });
});

afterAll(async () => {
  await app.close();
  idp.close();
});

function idpToken(claims: JWTPayload): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: issuer, aud: AUDIENCE, iat: now, exp: now + 600, org_id: ORG, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'idp-1', typ: 'JWT' })
    .sign(idpKey);
}

/** fetch with an external token and X-Client-Id. */
function as(token: string, clientId: string, target: TestApp = app) {
  return (path: string, init: RequestInit = {}) =>
    target.fetch(path, { ...init, headers: { ...authHeaders(token, clientId), 'content-type': 'application/json', ...init.headers } });
}

async function graphql(call: ReturnType<typeof as>, query: string): Promise<{ data?: any; errors?: { extensions?: { code?: string } }[] }> {
  return (await call('/graphql', { method: 'POST', body: JSON.stringify({ query }) })).json();
}

/** The ids of the keys a caller lists over REST and over GraphQL (they must agree). */
async function listedKeyIds(call: ReturnType<typeof as>): Promise<number[]> {
  const response = await call('/api/api-keys');
  expect(response.status).toBe(200);
  const rest = ((await response.json()) as { data: { id: number }[] }).data.map((key) => key.id);
  const { data } = await graphql(call, '{ apiKeys { data { id } } }');
  expect(data.apiKeys.data.map((key: { id: number }) => key.id)).toEqual(rest);
  return rest;
}

const sameKeyTokens: [string, (clientId: string) => JWTPayload][] = [
  ['sub `<our client id>@clients` (Auth0 machine token)', (clientId) => ({ sub: `${clientId}@clients`, gty: 'client-credentials' })],
  ['azp = our client id, machine grant', (clientId) => ({ sub: 'svc-1', azp: clientId, gty: 'client-credentials' })],
  ['client_id = our client id, user token', (clientId) => ({ sub: 'someone', client_id: clientId })],
];

describe('an external token naming one of our API keys as its client', () => {
  it.each(sameKeyTokens)('%s: neither lists nor revokes that key (REST and GraphQL)', async (_name, claims) => {
    const token = await idpToken({ permissions: ['read:entities'], ...claims(victim.clientId) });
    // The token is valid, and X-Client-Id may be the client id it names.
    const call = as(token, victim.clientId);
    expect((await call('/api/entities')).status).toBe(200);

    expect(await listedKeyIds(call)).toEqual([]);
    const refused = await call(`/api/api-keys/${victim.keyId}`, { method: 'DELETE' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    const { errors } = await graphql(call, `mutation { revokeApiKey(id: ${victim.keyId}) }`);
    expect(errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    // The key is untouched: its own token still works and still lists it as its own.
    expect((await victim.fetch('/api/entities')).status).toBe(200);
    expect(await listedKeyIds(as(victim.token, victim.clientId))).toContain(victim.keyId);
  });

  it('is not subject to that key: neither its revocation nor its last_used_at', async () => {
    const quiet = await createTestApiKey(app, { org: ORG, name: 'quiet', permissions: ['read:entities'] });
    const token = await idpToken({ sub: `${quiet.client_id}@clients`, permissions: ['read:entities'] });
    for (let i = 0; i < 3; i += 1) expect((await as(token, quiet.client_id)('/api/entities')).status).toBe(200);
    const row = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { client_id: quiet.client_id } });
    expect(row.last_used_at).toBeNull();

    expect((await victim.fetch(`/api/api-keys/${quiet.id}`, { method: 'DELETE' })).status).toBe(204);
    // Another principal: the local key's revocation is not its own.
    expect((await as(token, quiet.client_id)('/api/entities')).status).toBe(200);
  });

  it('is counted under `<client>@<issuer host>`, never in the local key\'s series', async () => {
    const token = await idpToken({ sub: `${victim.clientId}@clients`, permissions: ['read:news', 'read:usage'] });
    const call = as(token, victim.clientId);
    for (let i = 0; i < 3; i += 1) await (await call('/api/news?limit=1')).arrayBuffer();
    const external = `${victim.clientId}@${label}`;
    const range = seriesRange();

    // The administrator reads the external client by its namespaced id.
    const theirs = await waitForSeries(victim, `${range}&client_id=${encodeURIComponent(external)}`, (rows) => newsCount(rows) >= 3);
    expect(newsCount(theirs)).toBe(3);
    // The external principal's own series is that one (no client_id needed).
    const own = await call(`/api/usage/timeseries?${range}`);
    expect(newsCount(((await own.json()) as { data: UsageRow[] }).data)).toBe(3);
    // The local key never called /api/news: nothing of the external token's was counted to it.
    const local = await victim.fetch(`/api/usage/timeseries?${range}`);
    expect(seriesTotals(((await local.json()) as { data: UsageRow[] }).data).has('GET /api/news')).toBe(false);

    // Asking for the raw client id is asking for another client (ours): 403, naming the caller's own.
    const refused = await call(`/api/usage/timeseries?${range}&client_id=${victim.clientId}`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(JSON.stringify(external));
  });
});

describe('an external user whose `sub` equals a local user id', () => {
  it('does not own the keys that local user created', async () => {
    const local = await createUserToken(app, { user: 'alice', org: ORG, permissions: ['create:api-keys', 'read:entities'] });
    const created = await local.fetch('/api/api-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'alice key', permissions: ['read:entities'] }),
    });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { data: { id: number; created_by: string } }).data;
    expect(key.created_by).toBe('alice');

    const token = await idpToken({ sub: 'alice', permissions: ['read:entities'] });
    const external = as(token, 'alice');
    expect(await listedKeyIds(external)).toEqual([]);
    expect((await external(`/api/api-keys/${key.id}`, { method: 'DELETE' })).status).toBe(403);
    expect(await listedKeyIds(as(local.token, 'alice'))).toEqual([key.id]);
  });

  it('owns the keys it creates, recorded as `<sub>@<issuer host>`; the local user of that name does not', async () => {
    const token = await idpToken({ sub: 'bob', permissions: ['create:api-keys', 'read:entities'] });
    const external = as(token, 'bob');
    const created = await external('/api/api-keys', { method: 'POST', body: JSON.stringify({ name: 'bob key', permissions: ['read:entities'] }) });
    expect(created.status).toBe(201);
    const key = ((await created.json()) as { data: { id: number; created_by: string } }).data;
    expect(key.created_by).toBe(`bob@${label}`);
    expect(await listedKeyIds(external)).toEqual([key.id]);

    const local = await createUserToken(app, { user: 'bob', org: ORG, permissions: ['read:entities'] });
    expect(await listedKeyIds(as(local.token, 'bob'))).toEqual([]);
    expect((await local.fetch(`/api/api-keys/${key.id}`, { method: 'DELETE' })).status).toBe(403);
    expect((await external(`/api/api-keys/${key.id}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe("the external issuer's namespace", () => {
  it('is closed to our own tokens: a local subject ending in `@<issuer host>` is refused (401)', async () => {
    const impostor = await createUserToken(app, { user: `${victim.clientId}@${label}`, org: ORG, permissions: ['read:usage'] });
    const response = await impostor.fetch('/api/entities');
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/external identity provider/);
  });

  it('keeps an identity provider user in its application\'s series: `<azp>@<issuer host>`', async () => {
    const token = await idpToken({ sub: 'auth0|carol', azp: 'spa-app', permissions: ['read:usage', 'read:founders'] });
    const call = as(token, 'spa-app');
    await (await call('/api/founders?limit=1')).arrayBuffer();
    const rows = await waitForSeries(victim, `${seriesRange()}&client_id=${encodeURIComponent(`spa-app@${label}`)}`, (found) =>
      seriesTotals(found).has('GET /api/founders'),
    );
    expect(seriesTotals(rows).get('GET /api/founders')?.requests).toBe(1);
    const own = (await (await call(`/api/usage/timeseries?${seriesRange()}`)).json()) as { data: UsageRow[] };
    expect(seriesTotals(own.data).get('GET /api/founders')?.requests).toBe(1);
  });
});

describe('rate limits', () => {
  let limited: TestApp;

  beforeAll(async () => {
    limited = await startTestApp({
      env: { OIDC_ISSUER: issuer, OIDC_JWKS_URL: `${issuer}keys`, OIDC_AUDIENCE: AUDIENCE, RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' },
    });
  });

  afterAll(async () => {
    await limited.close();
  });

  it('an external token naming our key draws from a bucket of its own, not the key\'s', async () => {
    const key = await createApiKeyAndToken(limited, { org: ORG, permissions: [...ALL_PERMISSIONS] });
    const token = await idpToken({ sub: `${key.clientId}@clients`, permissions: ['read:entities'] });
    const call = as(token, key.clientId, limited);
    expect((await call('/api/entities')).status).toBe(200);
    expect((await call('/api/entities')).status).toBe(200);
    expect((await call('/api/entities')).status).toBe(429);
    const response = await key.fetch('/api/entities');
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-remaining')).toBe('1');
  });
});

const DAY_MS = 86_400_000;

/** Yesterday to tomorrow (UTC), so a test running across midnight still finds its requests. */
function seriesRange(): string {
  const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
  return `start_date=${day(-1)}&end_date=${day(1)}`;
}

const newsCount = (rows: UsageRow[]): number => seriesTotals(rows).get('GET /api/news')?.requests ?? 0;
