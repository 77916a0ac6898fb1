// Token verification against crafted tokens (jose), sent over HTTP: every way a token can be wrong.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, importJWK, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { authHeaders, createApiKeyAndToken, createUserToken, TEST_USER_AGENT, type TestCredentials } from '../../helpers/auth.ts';
import { appSigningKey, b64, callApi, signWithAppKey, validClaims } from './support.ts';

let app: TestApp;
let auth: TestCredentials;
let revoked: TestCredentials;
let attacker: { privateKey: CryptoKey; publicJwk: Record<string, unknown> };
let keyServer: Server;
let keyServerUrl: string;
const keyServerHits: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  revoked = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  await app.db.prisma.apiKey.update({ where: { client_id: revoked.clientId }, data: { revoked_at: new Date() } });
  const pair = await generateKeyPair('ES256', { extractable: true });
  attacker = { privateKey: pair.privateKey, publicJwk: { ...(await exportJWK(pair.publicKey)), kid: 'attacker', alg: 'ES256' } };
  // An attacker's key server: a `jku`/`x5u` header points here. It must never be asked.
  keyServer = createServer((req, res) => {
    keyServerHits.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [attacker.publicJwk] }));
  });
  await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', () => resolve()));
  keyServerUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  keyServer.close();
  await app.close();
});

const now = () => Math.floor(Date.now() / 1000);

function signWithAttacker(claims: Record<string, unknown>, header: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...header }).sign(attacker.privateKey);
}

async function hmacWith(secret: Uint8Array): Promise<string> {
  const key = await appSigningKey(app);
  return new SignJWT(validClaims(app, auth.clientId)).setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' }).sign(secret);
}

type Case = [name: string, token: () => Promise<string>, status: number, code: string, message: RegExp];

const unauthorized = (name: string, token: () => Promise<string>, message: RegExp): Case => [name, token, 401, 'UNAUTHORIZED', message];

const cases: Case[] = [
  unauthorized('alg none', async () => `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(validClaims(app, auth.clientId))}.`, /not accepted|invalid/),
  unauthorized('HS256 keyed with the public JWK', async () => hmacWith(new TextEncoder().encode(JSON.stringify((await appSigningKey(app)).publicJwk))), /not accepted/),
  unauthorized('HS256 keyed with the public key PEM', async () => {
    const key = await appSigningKey(app);
    const publicKey = (await importJWK(key.publicJwk, 'ES256', { extractable: true })) as CryptoKey;
    return hmacWith(new TextEncoder().encode(await exportSPKI(publicKey)));
  }, /not accepted/),
  unauthorized('a tampered payload', async () => {
    const [header, , signature] = auth.token.split('.');
    const claims = { ...validClaims(app, auth.clientId), permissions: ['admin:api-keys', 'read:entities'] };
    return `${header}.${b64(claims)}.${signature}`;
  }, /signature is invalid/),
  unauthorized('a flipped signature bit', async () => {
    const [header, payload, signature] = auth.token.split('.');
    const bytes = Buffer.from(signature!, 'base64url');
    bytes[10] = bytes[10]! ^ 0x01;
    return `${header}.${payload}.${bytes.toString('base64url')}`;
  }, /signature is invalid/),
  unauthorized('an unknown kid', () => signWithAttacker(validClaims(app, auth.clientId), { kid: 'attacker' }), /unknown key/),
  unauthorized('our kid on a foreign signature', async () => signWithAttacker(validClaims(app, auth.clientId), { kid: (await appSigningKey(app)).kid }), /signature is invalid/),
  unauthorized('an embedded jwk', () => signWithAttacker(validClaims(app, auth.clientId), { jwk: { kty: 'EC', crv: 'P-256', x: attacker.publicJwk.x, y: attacker.publicJwk.y } }), /unknown key/),
  unauthorized('a jku header', () => signWithAttacker(validClaims(app, auth.clientId), { kid: 'attacker', jku: `${keyServerUrl}/jwks.json` }), /unknown key/),
  unauthorized('an x5u header', () => signWithAttacker(validClaims(app, auth.clientId), { kid: 'attacker', x5u: `${keyServerUrl}/cert.pem` }), /unknown key/),
  unauthorized('no kid', async () => {
    const key = await appSigningKey(app);
    return new SignJWT(validClaims(app, auth.clientId)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).sign(key.privateKey);
  }, /unknown key/),
  unauthorized('expired beyond the 30 s tolerance', () => signWithAppKey(app, validClaims(app, auth.clientId, { iat: now() - 3600, exp: now() - 45 })), /has expired/),
  unauthorized('not yet valid beyond the 30 s tolerance', () => signWithAppKey(app, validClaims(app, auth.clientId, { nbf: now() + 120 })), /not yet valid/),
  unauthorized('another issuer', () => signWithAppKey(app, validClaims(app, auth.clientId, { iss: 'https://issuer.example' })), /unknown issuer/),
  unauthorized('another audience', () => signWithAppKey(app, validClaims(app, auth.clientId, { aud: 'https://other-api.example' })), /another audience/),
  unauthorized('a plain JWT typ', () => signWithAppKey(app, validClaims(app, auth.clientId), { typ: 'JWT' }), /wrong type/),
  unauthorized('no org_id', () => signWithAppKey(app, validClaims(app, auth.clientId, { org_id: undefined })), /org_id/),
  unauthorized('an unknown gty', () => signWithAppKey(app, validClaims(app, auth.clientId, { gty: 'password' })), /gty/),
  unauthorized('no exp', () => signWithAppKey(app, validClaims(app, auth.clientId, { exp: undefined })), /"exp" claim/),
  unauthorized('a revoked key', async () => revoked.token, /revoked/),
  unauthorized('a deleted key', () => signWithAppKey(app, validClaims(app, 'vdc_never_existed')), /does not exist/),
  unauthorized('garbage', async () => 'not-a-jwt', /malformed/),
  unauthorized('a 12 KB token', async () => `${'a'.repeat(12_000)}.b.c`, /too long/),
];

describe('REST refuses bad tokens with 401 and WWW-Authenticate', () => {
  it.each(cases)('%s', async (_name, token, status, code, message) => {
    const value = await token();
    const clientId = (() => {
      try {
        return (JSON.parse(Buffer.from(value.split('.')[1]!, 'base64url').toString()) as { sub?: string }).sub ?? auth.clientId;
      } catch {
        return auth.clientId;
      }
    })();
    const response = await callApi(app, value, clientId);
    expect(response.status).toBe(status);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const body = await response.json();
    expect(body).toEqual({ error: { code, message: expect.stringMatching(message) } });
  });

  it('never fetched a jku or x5u URL', () => {
    expect(keyServerHits).toEqual([]);
  });

  it('accepts the same crafted claims when they are right, and clock skew within 30 s', async () => {
    expect((await callApi(app, await signWithAppKey(app, validClaims(app, auth.clientId)), auth.clientId)).status).toBe(200);
    const skewed = validClaims(app, auth.clientId, { nbf: now() + 10, exp: now() - 10 });
    expect((await callApi(app, await signWithAppKey(app, skewed), auth.clientId)).status).toBe(200);
  });
});

describe('required headers and the client id', () => {
  const headerCases: [string, Record<string, string>, string, RegExp][] = [
    ['no Authorization', { 'User-Agent': TEST_USER_AGENT, 'X-Client-Id': 'c' }, 'header.authorization', /Authorization header is required/],
    ['a Basic Authorization', { Authorization: 'Basic abc', 'User-Agent': TEST_USER_AGENT, 'X-Client-Id': 'c' }, 'header.authorization', /must be Bearer/],
    ['an empty Bearer', { Authorization: 'Bearer ', 'User-Agent': TEST_USER_AGENT, 'X-Client-Id': 'c' }, 'header.authorization', /must be Bearer/],
    ['a token with spaces', { Authorization: 'Bearer a b', 'User-Agent': TEST_USER_AGENT, 'X-Client-Id': 'c' }, 'header.authorization', /must be Bearer/],
    ['an empty User-Agent', { Authorization: 'Bearer abc', 'User-Agent': '', 'X-Client-Id': 'c' }, 'header.user-agent', /^The User-Agent header is required for API key requests$/],
    ['no X-Client-Id', { Authorization: 'Bearer abc', 'User-Agent': TEST_USER_AGENT }, 'header.x-client-id', /X-Client-Id header is required/],
  ];

  it.each(headerCases)('%s → 400 VALIDATION_ERROR', async (_name, headers, path, message) => {
    const response = await app.fetch('/api/entities', { headers });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message), details: [{ path, message: expect.any(String) }] });
  });

  it('checks the headers before the token (a bad token without User-Agent is 400)', async () => {
    const response = await app.fetch('/api/entities', { headers: { Authorization: 'Bearer garbage', 'User-Agent': '', 'X-Client-Id': 'c' } });
    expect(response.status).toBe(400);
  });

  it('refuses the X-Client-Id of another client with 400, after the token is checked', async () => {
    const other = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const response = await callApi(app, auth.token, other.clientId);
    expect(response.status).toBe(400);
    expect((await response.json()).error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'The X-Client-Id header does not match the client the token was issued to',
      details: [{ path: 'header.x-client-id', message: expect.any(String) }],
    });
    expect((await callApi(app, 'garbage', other.clientId)).status).toBe(401);
  });

  it('takes a user token with X-Client-Id equal to its subject', async () => {
    const user = await createUserToken(app, { user: 'user-42', permissions: ['read:entities'] });
    expect((await callApi(app, user.token, 'user-42')).status).toBe(200);
    expect((await callApi(app, user.token, auth.clientId)).status).toBe(400);
  });

  it('answers a 100 KB Authorization header quickly and never with a 5xx', async () => {
    const started = performance.now();
    const response = await app.fetch('/api/entities', { headers: { ...authHeaders(`${'a'.repeat(100_000)}`, auth.clientId) } });
    // Node refuses headers over 16 KB itself (431); under that limit the token is refused unparsed (401).
    expect([400, 401, 431]).toContain(response.status);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('GraphQL applies the same checks', () => {
  const post = (headers: Record<string, string>, query: string) =>
    app.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });

  it('refuses a bad token with 401, before parsing the query', async () => {
    const response = await post(authHeaders('garbage', auth.clientId), '{ entities { ');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect((await response.json()).errors[0].extensions.code).toBe('UNAUTHORIZED');
  });

  it('refuses missing headers with 400 and the header paths', async () => {
    const response = await post({ 'User-Agent': TEST_USER_AGENT }, '{ __typename }');
    expect(response.status).toBe(400);
    const [error] = (await response.json()).errors;
    expect(error.extensions.code).toBe('VALIDATION_ERROR');
    expect(error.extensions.details.map((detail: { path: string }) => detail.path)).toEqual(['header.authorization', 'header.x-client-id']);
  });

  it('refuses a revoked key', async () => {
    const response = await post(revoked.headers, '{ __typename }');
    expect(response.status).toBe(401);
  });

  it('serves the GraphiQL page without a token, but not a GET query', async () => {
    const page = await app.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const query = await app.fetch('/graphql?query=%7B__typename%7D', { headers: { accept: 'application/json' } });
    expect(query.status).toBe(400);
    const authorized = await auth.fetch('/graphql?query=%7B__typename%7D', { headers: { accept: 'application/json' } });
    expect(authorized.status).toBe(200);
    expect(await authorized.json()).toEqual({ data: { __typename: 'Query' } });
  });
});
