// POST /oauth/token over real HTTP: the client credentials grant, RFC 6749 error bodies, brute-force limits.
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/auth/api-keys.ts';
import { FAILURES_PER_ADDRESS, FAILURES_PER_CLIENT } from '../../../src/auth/token-guard.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestApiKey } from '../../helpers/auth.ts';
import { basic, callApi, form, json } from './support.ts';

let app: TestApp;
let key: { client_id: string; client_secret: string };
let revoked: { client_id: string; client_secret: string };

beforeAll(async () => {
  app = await startTestApp();
  key = await createTestApiKey(app, { permissions: ['read:entities', 'read:founders'] });
  revoked = await createTestApiKey(app, { permissions: ['read:entities'] });
  await app.db.prisma.apiKey.update({ where: { client_id: revoked.client_id }, data: { revoked_at: new Date() } });
});

afterAll(async () => {
  await app.close();
});

const token = (init: RequestInit) => app.fetch('/oauth/token', init);

describe('successful client credentials grants', () => {
  it('issues a signed at+jwt with every contract claim, not cacheable', async () => {
    const response = await token(json({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret, audience: app.config.PUBLIC_URL }));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: app.config.TOKEN_TTL_SECONDS });
    expect(decodeProtectedHeader(body.access_token)).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'at+jwt' });
    const claims = decodeJwt(body.access_token);
    expect(claims).toEqual({
      iss: app.config.PUBLIC_URL,
      sub: key.client_id,
      aud: app.config.PUBLIC_URL,
      iat: expect.any(Number),
      exp: claims.iat! + app.config.TOKEN_TTL_SECONDS,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      permissions: ['read:entities', 'read:founders'],
      org_id: 'test-org',
      gty: 'client-credentials',
    });
    expect((await callApi(app, body.access_token, key.client_id)).status).toBe(200);
  });

  it('accepts a form body (client_secret_post) and no audience (it defaults to PUBLIC_URL)', async () => {
    const response = await token(form({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret }));
    expect(response.status).toBe(200);
    expect(decodeJwt((await response.json()).access_token).aud).toBe(app.config.PUBLIC_URL);
  });

  it('accepts HTTP Basic with form-urlencoded parts (RFC 6749 §2.3.1)', async () => {
    const odd = await createApiKey(app.db.prisma, {
      name: 'odd characters',
      permissions: ['read:entities'],
      orgId: 'test-org',
      createdBy: 'tests',
      clientId: 'client:with/odd chars+ü',
      clientSecret: 'p@ss:w%rd+&= ü',
    });
    const response = await token({ ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(odd.client_id, odd.client_secret) } });
    expect(response.status).toBe(200);
    expect(decodeJwt((await response.json()).access_token).sub).toBe('client:with/odd chars+ü');
  });

  it('narrows the token to the requested scope', async () => {
    const response = await token(form({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret, scope: 'read:founders' }));
    const body = await response.json();
    expect(body.scope).toBe('read:founders');
    expect(decodeJwt(body.access_token).permissions).toEqual(['read:founders']);
    expect((await callApi(app, body.access_token, key.client_id)).status).toBe(403);
  });

  it('records last_used_at when a key obtains a token', async () => {
    const fresh = await createTestApiKey(app, { permissions: ['read:entities'] });
    await token(json({ grant_type: 'client_credentials', client_id: fresh.client_id, client_secret: fresh.client_secret }));
    await expect.poll(async () => (await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: fresh.id } })).last_used_at).not.toBeNull();
  });
});

describe('errors are RFC 6749 §5.2 bodies', () => {
  const cases: [string, () => RequestInit, number, string, string | null][] = [
    ['no grant_type', () => json({ client_id: key.client_id, client_secret: key.client_secret }), 400, 'invalid_request', null],
    ['another grant type', () => form({ grant_type: 'password', client_id: key.client_id, client_secret: key.client_secret }), 400, 'unsupported_grant_type', null],
    ['a text/plain body', () => ({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'grant_type=client_credentials' }), 400, 'invalid_request', null],
    ['no body at all', () => ({ method: 'POST' }), 400, 'invalid_request', null],
    ['broken JSON', () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":' }), 400, 'invalid_request', null],
    ['a JSON array', () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' }), 400, 'invalid_request', null],
    ['a non-string parameter', () => json({ grant_type: 'client_credentials', client_id: 42, client_secret: 'x' }), 400, 'invalid_request', null],
    ['a repeated parameter', () => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${key.client_id}&client_id=other&client_secret=x` }), 400, 'invalid_request', null],
    ['Basic and a body secret together', () => ({ ...form({ grant_type: 'client_credentials', client_secret: key.client_secret }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(key.client_id, key.client_secret) } }), 400, 'invalid_request', null],
    ['no client authentication', () => form({ grant_type: 'client_credentials' }), 401, 'invalid_client', null],
    ['a secret without a client id', () => form({ grant_type: 'client_credentials', client_secret: key.client_secret }), 401, 'invalid_client', null],
    ['an unknown client', () => json({ grant_type: 'client_credentials', client_id: 'vdc_nobody', client_secret: key.client_secret }), 401, 'invalid_client', null],
    ['a wrong secret', () => json({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: 'vds_wrong' }), 401, 'invalid_client', null],
    ['a revoked key', () => json({ grant_type: 'client_credentials', client_id: revoked.client_id, client_secret: revoked.client_secret }), 401, 'invalid_client', null],
    ['a wrong secret in Basic', () => ({ ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(key.client_id, 'wrong') } }), 401, 'invalid_client', 'Basic realm="oauth", charset="UTF-8"'],
    ['a malformed Basic header', () => ({ ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic !!!' } }), 401, 'invalid_client', 'Basic realm="oauth", charset="UTF-8"'],
    ['another audience', () => json({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret, audience: 'https://elsewhere.example' }), 403, 'access_denied', null],
    ['a scope beyond the key', () => form({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret, scope: 'read:entities admin:api-keys' }), 400, 'invalid_scope', null],
    ['an unknown scope', () => form({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret, scope: 'read:everything' }), 400, 'invalid_scope', null],
  ];

  it.each(cases)('%s → %i %s', async (_name, init, status, error, wwwAuthenticate) => {
    const response = await token(init());
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('www-authenticate')).toBe(wwwAuthenticate);
    expect(await response.json()).toEqual({ error, error_description: expect.any(String) });
  });

  it('answers an unknown client, a wrong secret and a revoked key identically, after the same work', async () => {
    const attempts = {
      unknown: () => json({ grant_type: 'client_credentials', client_id: 'vdc_unknown_client_000000', client_secret: key.client_secret }),
      wrong: () => json({ grant_type: 'client_credentials', client_id: revoked.client_id, client_secret: `${revoked.client_secret}x` }),
      revoked: () => json({ grant_type: 'client_credentials', client_id: revoked.client_id, client_secret: revoked.client_secret }),
    };
    const bodies = new Set<string>();
    const timings: Record<string, number> = {};
    for (const [name, init] of Object.entries(attempts)) {
      const started = performance.now();
      for (let i = 0; i < 3; i += 1) bodies.add(await (await token(init())).text());
      timings[name] = (performance.now() - started) / 3;
    }
    expect([...bodies]).toEqual(['{"error":"invalid_client","error_description":"Client authentication failed"}']);
    // A hash comparison runs every time (a few milliseconds of scrypt), so no answer is much quicker.
    const values = Object.values(timings);
    expect(Math.max(...values) / Math.min(...values)).toBeLessThan(3);
  });

  it('is 405 with Allow for other methods', async () => {
    const response = await app.fetch('/oauth/token');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('brute-force protection', () => {
  it(`refuses a client id with 429 and Retry-After after ${FAILURES_PER_CLIENT} failures, even with the right secret`, async () => {
    const target = await createTestApiKey(app, { permissions: ['read:entities'] });
    const other = await createTestApiKey(app, { permissions: ['read:entities'] });
    for (let i = 0; i < FAILURES_PER_CLIENT; i += 1) {
      expect((await token(json({ grant_type: 'client_credentials', client_id: target.client_id, client_secret: `guess-${i}` }))).status).toBe(401);
    }
    const blocked = await token(json({ grant_type: 'client_credentials', client_id: target.client_id, client_secret: target.client_secret }));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.json()).toEqual({ error: 'slow_down', error_description: expect.stringMatching(/retry in \d+ s/) });
    const unaffected = await token(json({ grant_type: 'client_credentials', client_id: other.client_id, client_secret: other.client_secret }));
    expect(unaffected.status).toBe(200);
  });

  it(`refuses an address after ${FAILURES_PER_ADDRESS} failures across client ids`, async () => {
    const own = await startTestApp();
    try {
      const valid = await createTestApiKey(own, { permissions: ['read:entities'] });
      for (let batch = 0; batch < FAILURES_PER_ADDRESS / 10; batch += 1) {
        await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            own.fetch('/oauth/token', json({ grant_type: 'client_credentials', client_id: `vdc_spray_${batch}_${i}`, client_secret: 'x' })),
          ),
        );
      }
      const response = await own.fetch('/oauth/token', json({ grant_type: 'client_credentials', client_id: valid.client_id, client_secret: valid.client_secret }));
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await own.close();
    }
  });
});
