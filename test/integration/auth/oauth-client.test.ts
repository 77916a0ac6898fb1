// A real OAuth client library against the running server: openid-client discovers the issuer, gets
// tokens with client_secret_post and client_secret_basic; jose verifies them from the published JWKS.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestApiKey } from '../../helpers/auth.ts';
import { callApi } from './support.ts';

let app: TestApp;
let key: { client_id: string; client_secret: string };

beforeAll(async () => {
  app = await startTestApp();
  key = await createTestApiKey(app, { permissions: ['read:entities'] });
});

afterAll(async () => {
  await app.close();
});

describe.each([
  ['client_secret_post', () => oidc.ClientSecretPost(key.client_secret)],
  ['client_secret_basic', () => oidc.ClientSecretBasic(key.client_secret)],
])('openid-client with %s', (_method, clientAuth) => {
  it('discovers, obtains a token, verifies it from the JWKS and calls the API', async () => {
    const config = await oidc.discovery(new URL(app.url), key.client_id, undefined, clientAuth(), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata()).toMatchObject({
      issuer: app.url,
      token_endpoint: `${app.url}/oauth/token`,
      jwks_uri: `${app.url}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    });

    const tokens = await oidc.clientCredentialsGrant(config, { audience: app.url });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(app.config.TOKEN_TTL_SECONDS);
    expect(tokens.refresh_token).toBeUndefined();

    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: app.url,
      audience: app.url,
      algorithms: ['ES256'],
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: key.client_id, permissions: ['read:entities'], org_id: 'test-org', gty: 'client-credentials' });
    expect(protectedHeader.kid).toEqual(expect.any(String));

    const response = await callApi(app, tokens.access_token, key.client_id);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: [], page: expect.objectContaining({ limit: 25, offset: 0 }) });
  });
});

describe('the JWKS', () => {
  it('holds public keys only', async () => {
    const body = await (await app.fetch('/.well-known/jwks.json')).json();
    expect(body.keys.length).toBeGreaterThan(0);
    for (const jwk of body.keys) {
      expect(Object.keys(jwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    }
  });

  it('is 405 for other methods', async () => {
    const response = await app.fetch('/.well-known/jwks.json', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});
