// Signing keys: generated on first use and stored, rotated by the command line with the old key kept
// in the JWKS until its tokens expire, or given by SIGNING_KEY_JWK.
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureSigningKey, ROTATION_GRACE_SECONDS } from '../../../src/auth/signing-keys.ts';
import type { CliContext } from '../../../src/cli/command.ts';
import { CliUsageError } from '../../../src/cli/command.ts';
import { keysRotateSigningCommand } from '../../../src/cli/keys-rotate-signing.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, requestToken, type TestCredentials } from '../../helpers/auth.ts';
import { callApi } from './support.ts';

let app: TestApp;
let first: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  first = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
});

afterAll(async () => {
  await app.close();
});

afterEach(() => {
  vi.useRealTimers();
});

function cliContext(target: TestApp, lines: string[], env: Record<string, string> = {}): CliContext {
  return {
    config: { ...target.config, ...env } as CliContext['config'],
    logger: createLogger({ level: 'silent' }),
    database: async () => target.db,
    print: (line) => lines.push(line),
  };
}

const jwksKids = async (target: TestApp) =>
  ((await (await target.fetch('/.well-known/jwks.json')).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);

describe('the generated key', () => {
  it('is created on first use and stored with its private half', async () => {
    const rows = await app.db.sql.query<{ kid: string; private_jwk: Record<string, unknown>; retired_at: Date | null }>(
      'SELECT kid, private_jwk, retired_at FROM signing_keys',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.private_jwk).toHaveProperty('d');
    expect(decodeProtectedHeader(first.token).kid).toBe(rows[0]!.kid);
    expect(await jwksKids(app)).toEqual([rows[0]!.kid]);
  });
});

describe('keys:rotate-signing', () => {
  it('signs new tokens with a new key and keeps the old one published until its tokens expire', async () => {
    const oldKid = decodeProtectedHeader(first.token).kid!;
    const lines: string[] = [];
    expect(await keysRotateSigningCommand.run([], cliContext(app, lines))).toBe(0);
    const [active] = await app.db.sql.query<{ kid: string }>('SELECT kid FROM signing_keys WHERE retired_at IS NULL');
    const newKid = active!.kid;
    expect(lines[0]).toBe(`New signing key: ${newKid}`);
    expect(lines[1]).toContain(oldKid);

    const [retired] = await app.db.sql.query<{ retired_at: Date; expires_at: Date }>('SELECT retired_at, expires_at FROM signing_keys WHERE kid = $1', [oldKid]);
    const lifetime = (new Date(retired!.expires_at).getTime() - new Date(retired!.retired_at).getTime()) / 1000;
    expect(lifetime).toBe(app.config.TOKEN_TTL_SECONDS + ROTATION_GRACE_SECONDS);

    // A new instance signs with the new key at once; the running one within a minute.
    const second = await startTestApp({ db: app.db, env: { PUBLIC_URL: app.config.PUBLIC_URL } });
    try {
      const fresh = await createApiKeyAndToken(second, { permissions: ['read:entities'] });
      expect(decodeProtectedHeader(fresh.token).kid).toBe(newKid);
      // The running instance has never seen newKid: it re-reads the key set instead of refusing.
      expect((await callApi(app, fresh.token, fresh.clientId)).status).toBe(200);
    } finally {
      await second.close();
    }
    expect((await first.fetch('/api/entities')).status).toBe(200);
    expect((await jwksKids(app)).sort()).toEqual([oldKid, newKid].sort());

    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ['Date'] });
    const later = await requestToken(app, first.clientId, first.clientSecret);
    expect(decodeProtectedHeader(later).kid).toBe(newKid);
  });

  it('drops a retired key from the JWKS once its last token has expired', async () => {
    const oldKid = decodeProtectedHeader(first.token).kid!;
    expect(await jwksKids(app)).toContain(oldKid);
    vi.useFakeTimers({ now: Date.now() + (app.config.TOKEN_TTL_SECONDS + ROTATION_GRACE_SECONDS + 5) * 1000, toFake: ['Date'] });
    expect(await jwksKids(app)).not.toContain(oldKid);
    expect((await first.fetch('/api/entities')).status).toBe(401);
  });

  it('refuses to rotate a configured key', async () => {
    await expect(keysRotateSigningCommand.run([], cliContext(app, [], { SIGNING_KEY_JWK: '{}' }))).rejects.toBeInstanceOf(CliUsageError);
  });
});

describe('SIGNING_KEY_JWK', () => {
  it.each([['ES256'], ['EdDSA']] as const)('signs with a configured %s key and stores only its public half', async (alg) => {
    const pair = await generateKeyPair(alg, { extractable: true });
    const jwk = { ...(await exportJWK(pair.privateKey)), kid: `configured-${alg}` };
    const configured = await startTestApp({ env: { SIGNING_KEY_JWK: JSON.stringify(jwk) } });
    try {
      const credentials = await createApiKeyAndToken(configured, { permissions: ['read:entities'] });
      expect(decodeProtectedHeader(credentials.token)).toMatchObject({ alg, kid: `configured-${alg}` });
      expect((await credentials.fetch('/api/entities')).status).toBe(200);
      const rows = await configured.db.sql.query<{ private_jwk: Record<string, unknown> }>('SELECT private_jwk FROM signing_keys WHERE kid = $1', [jwk.kid]);
      expect(rows).toEqual([{ private_jwk: {} }]);
      expect(await jwksKids(configured)).toEqual([jwk.kid]);
    } finally {
      await configured.close();
    }
  });

  it.each([
    ['not JSON', 'nope', /not valid JSON/],
    ['an RSA key', JSON.stringify({ kty: 'RSA', n: 'x', e: 'AQAB', d: 'y' }), /EC P-256|Ed25519/],
    ['a public key', JSON.stringify({ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }), /private key/],
  ])('stops the start for %s', async (_name, value, message) => {
    const config = loadConfig({ SIGNING_KEY_JWK: value });
    await expect(ensureSigningKey(app.db.sql, config)).rejects.toThrow(message);
  });
});
