// Shared by the auth tests: crafting tokens with the app's own signing key (read from the database,
// as an attacker with the key would), and small request helpers.
import { importJWK, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';
import type { TestApp } from '../../helpers/app.ts';
import { authHeaders } from '../../helpers/auth.ts';

export interface AppSigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** The newest active signing key of the app (generated on the first token if need be). */
export async function appSigningKey(app: TestApp): Promise<AppSigningKey> {
  const [row] = await app.db.sql.query<{ kid: string; alg: string; private_jwk: JWK; public_jwk: JWK }>(
    `SELECT kid, alg, private_jwk, public_jwk FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
  );
  if (!row) throw new Error('no signing key yet: request a token first');
  return { kid: row.kid, alg: row.alg, privateKey: (await importJWK(row.private_jwk, row.alg)) as CryptoKey, publicJwk: row.public_jwk };
}

/** Claims of a valid API key token for `clientId`, to be varied by a test. */
export function validClaims(app: TestApp, clientId: string, overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: app.config.PUBLIC_URL,
    aud: app.config.PUBLIC_URL,
    sub: clientId,
    iat: now,
    exp: now + 3600,
    jti: randomUUID(),
    permissions: ['read:entities'],
    org_id: 'test-org',
    gty: 'client-credentials',
    ...overrides,
  };
}

/** Signs `claims` with the app's key (header fields may be overridden). */
export async function signWithAppKey(
  app: TestApp,
  claims: JWTPayload,
  header: Record<string, unknown> = {},
): Promise<string> {
  const key = await appSigningKey(app);
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header }).sign(key.privateKey);
}

export function b64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** GET /api/entities with the given token and client id. */
export function callApi(app: TestApp, token: string, clientId: string, path = '/api/entities'): Promise<Response> {
  return app.fetch(path, { headers: authHeaders(token, clientId) });
}

export function form(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

export function json(fields: Record<string, unknown>, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(fields) };
}

/** RFC 6749 §2.3.1: each part form-urlencoded, then base64. */
export function basic(clientId: string, clientSecret: string): string {
  const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}
