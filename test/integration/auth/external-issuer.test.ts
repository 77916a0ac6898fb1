// Tokens from an external identity provider (OIDC_ISSUER): a second, local issuer serving a JWKS with a
// key generated here; its tokens are accepted like ours, with `permissions` or `scope` and `org_id`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { authHeaders } from '../../helpers/auth.ts';

const AUDIENCE = 'https://api.venture.example';

let idp: Server;
let issuer: string;
let idpKey: CryptoKey;
let strangerKey: CryptoKey;
let app: TestApp;
const jwksRequests: string[] = [];

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  idpKey = pair.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }] };
  idp = createServer((req, res) => {
    jwksRequests.push(req.url ?? '');
    if (req.url === '/keys' || req.url === '/.well-known/jwks.json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(jwks));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', () => resolve()));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/`;
  app = await startTestApp({ env: { OIDC_ISSUER: issuer, OIDC_JWKS_URL: `${issuer}keys`, OIDC_AUDIENCE: AUDIENCE } });
});

afterAll(async () => {
  await app.close();
  idp.close();
});

function idpToken(claims: JWTPayload, options: { key?: CryptoKey; kid?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: issuer, aud: AUDIENCE, iat: now, exp: now + 600, org_id: 'acme', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'idp-1', typ: 'JWT' })
    .sign(options.key ?? idpKey);
}

const call = (token: string, clientId: string, path = '/api/entities') => app.fetch(path, { headers: authHeaders(token, clientId) });

describe('accepted external tokens', () => {
  it('reads the permissions claim and org_id of a user token; X-Client-Id may be azp or sub', async () => {
    const token = await idpToken({ sub: 'auth0|user-1', azp: 'spa-client', permissions: ['read:entities'] });
    expect((await call(token, 'spa-client')).status).toBe(200);
    expect((await call(token, 'auth0|user-1')).status).toBe(200);
    expect((await call(token, 'another-client')).status).toBe(400);
    expect((await call(token, 'spa-client', '/api/founders')).status).toBe(403);
    const org = await app.db.prisma.organization.findUnique({ where: { id: 'acme' } });
    expect(org).not.toBeNull();
  });

  it('reads a space-separated scope when there is no permissions claim', async () => {
    const token = await idpToken({ sub: 'user-2', scope: 'openid read:founders read:entities' });
    expect((await call(token, 'user-2', '/api/founders')).status).toBe(200);
  });

  it('takes `<client_id>@clients` machine tokens with the client id as X-Client-Id', async () => {
    const token = await idpToken({ sub: 'm2m-app@clients', gty: 'client-credentials', permissions: ['read:entities'] });
    expect((await call(token, 'm2m-app')).status).toBe(200);
    expect((await call(token, 'other-app')).status).toBe(400);
  });
});

describe('refused external tokens', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => Promise<string>, RegExp][] = [
    ['our audience instead of OIDC_AUDIENCE', () => idpToken({ sub: 'u', aud: 'http://elsewhere', permissions: [] }), /another audience/],
    ['a key the provider does not publish', () => idpToken({ sub: 'u', permissions: [] }, { key: strangerKey, kid: 'idp-2' }), /unknown key/],
    ['a published kid on a foreign signature', () => idpToken({ sub: 'u', permissions: [] }, { key: strangerKey }), /signature is invalid/],
    ['an expired token', () => idpToken({ sub: 'u', iat: now() - 7200, exp: now() - 3600 }), /has expired/],
    ['no org_id', () => idpToken({ sub: 'u', org_id: undefined }), /org_id/],
    ['HS256', async () => new SignJWT({ iss: issuer, aud: AUDIENCE, sub: 'u', org_id: 'acme', exp: now() + 60 }).setProtectedHeader({ alg: 'HS256', kid: 'idp-1' }).sign(new TextEncoder().encode('x'.repeat(32))), /not accepted/],
    ['a permissions claim that is not a list of strings', () => idpToken({ sub: 'u', permissions: [1, 2] }), /permissions/],
  ];

  it.each(cases)('%s → 401', async (_name, token, message) => {
    const response = await call(await token(), 'u');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect((await response.json()).error).toEqual({ code: 'UNAUTHORIZED', message: expect.stringMatching(message) });
  });
});

describe('issuer configuration', () => {
  it('finds the JWKS at <issuer>/.well-known/jwks.json when OIDC_JWKS_URL is not set', async () => {
    const other = await startTestApp({ env: { OIDC_ISSUER: issuer, OIDC_AUDIENCE: AUDIENCE } });
    try {
      const before = jwksRequests.length;
      const token = await idpToken({ sub: 'user-3', permissions: ['read:entities'] });
      expect((await other.fetch('/api/entities', { headers: authHeaders(token, 'user-3') })).status).toBe(200);
      expect(jwksRequests.slice(before)).toEqual(['/.well-known/jwks.json']);
    } finally {
      await other.close();
    }
  });

  it('answers 503 when the provider cannot be reached', async () => {
    const down = 'http://127.0.0.1:1/';
    const other = await startTestApp({ env: { OIDC_ISSUER: down, OIDC_AUDIENCE: AUDIENCE } });
    try {
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ iss: down, aud: AUDIENCE, sub: 'u', org_id: 'acme', exp: now + 60 })
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-1' })
        .sign(idpKey);
      const response = await other.fetch('/api/entities', { headers: authHeaders(token, 'u') });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect((await response.json()).error.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await other.close();
    }
  });
});
