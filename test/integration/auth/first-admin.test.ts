// The first administrator: from ADMIN_CLIENT_ID/ADMIN_CLIENT_SECRET, or created on an empty database
// with its credentials written to DATA_DIR/admin-credentials.json (mode 0600).
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_CREDENTIALS_FILE, ensureFirstAdministrator } from '../../../src/auth/first-admin.ts';
import { PERMISSIONS } from '../../../src/auth/permissions.ts';
import { verifySecret } from '../../../src/auth/secrets.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp } from '../../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { callApi } from './support.ts';

let db: TestDatabase;
let dataDir: string;
let logs: string[];

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.destroy();
});

// Each test starts from a database without keys and an empty DATA_DIR.
beforeEach(async () => {
  await db.sql.exec('DELETE FROM api_keys');
  dataDir = await mkdtemp(join(tmpdir(), 'vda-admin-'));
  logs = [];
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function prepare(env: Record<string, string> = {}) {
  const logger = createLogger({
    level: 'info',
    destination: new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) }),
  });
  return ensureFirstAdministrator({ config: loadConfig({ DATA_DIR: dataDir, ...env }), db, logger });
}

describe('without ADMIN_CLIENT_ID', () => {
  it('creates one administrator on a database without keys, writes its credentials 0600 and logs only the path', async () => {
    await prepare();
    const path = join(dataDir, ADMIN_CREDENTIALS_FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(await readFile(path, 'utf8'));
    expect(credentials).toEqual({
      client_id: expect.any(String),
      client_secret: expect.stringMatching(/^vds_/),
      org_id: 'default',
      token_url: 'http://localhost:3000/oauth/token',
      audience: 'http://localhost:3000',
    });
    const key = await db.prisma.apiKey.findUniqueOrThrow({ where: { client_id: credentials.client_id } });
    expect(key).toMatchObject({ org_id: 'default', permissions: [...PERMISSIONS], created_by: 'system', revoked_at: null });
    expect(await db.prisma.organization.findUnique({ where: { id: 'default' } })).not.toBeNull();
    expect(logs.join('')).toContain(path);
    expect(logs.join('')).not.toContain(credentials.client_secret);

    await prepare();
    expect(await db.prisma.apiKey.count()).toBe(1);
  });

  it('replaces a stale credentials file instead of keeping its permissions', async () => {
    const path = join(dataDir, ADMIN_CREDENTIALS_FILE);
    await writeFile(path, 'old', { mode: 0o644 });
    await prepare();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, 'utf8')).toContain('client_secret');
  });

  it('does nothing when keys exist', async () => {
    await prepare({ ADMIN_CLIENT_ID: 'seeded', ADMIN_CLIENT_SECRET: 'seeded-secret-value' });
    await prepare();
    expect(await db.prisma.apiKey.count()).toBe(1);
    await expect(stat(join(dataDir, ADMIN_CREDENTIALS_FILE))).rejects.toThrow();
  });

  it('gives credentials that work end to end', async () => {
    await prepare();
    const credentials = JSON.parse(await readFile(join(dataDir, ADMIN_CREDENTIALS_FILE), 'utf8'));
    const app = await startTestApp({ db });
    try {
      const response = await app.fetch('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret }),
      });
      const { access_token: token } = await response.json();
      expect((await callApi(app, token, credentials.client_id)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('with ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET', () => {
  const env = { ADMIN_CLIENT_ID: 'ops-admin', ADMIN_CLIENT_SECRET: 'a-long-operator-chosen-secret', ADMIN_ORG: 'ops' };

  it('ensures the key exists in ADMIN_ORG with every permission, once', async () => {
    await prepare(env);
    await prepare(env);
    const keys = await db.prisma.apiKey.findMany();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ client_id: 'ops-admin', org_id: 'ops', permissions: [...PERMISSIONS] });
    expect(await verifySecret(env.ADMIN_CLIENT_SECRET, keys[0]!.secret_hash)).toBe(true);
    expect(logs.join('')).not.toContain(env.ADMIN_CLIENT_SECRET);
  });

  it('replaces the hash when the configured secret changes, and restores missing permissions', async () => {
    await prepare(env);
    await db.prisma.apiKey.update({ where: { client_id: 'ops-admin' }, data: { permissions: ['read:entities'] } });
    await prepare({ ...env, ADMIN_CLIENT_SECRET: 'the-rotated-operator-secret' });
    const key = await db.prisma.apiKey.findUniqueOrThrow({ where: { client_id: 'ops-admin' } });
    expect(await verifySecret('the-rotated-operator-secret', key.secret_hash)).toBe(true);
    expect(await verifySecret(env.ADMIN_CLIENT_SECRET, key.secret_hash)).toBe(false);
    expect(key.permissions).toEqual(expect.arrayContaining([...PERMISSIONS]));
    expect(logs.join('')).not.toContain('the-rotated-operator-secret');
  });

  it('leaves a revoked administrator key revoked', async () => {
    await prepare(env);
    await db.prisma.apiKey.update({ where: { client_id: 'ops-admin' }, data: { revoked_at: new Date() } });
    await prepare(env);
    expect((await db.prisma.apiKey.findUniqueOrThrow({ where: { client_id: 'ops-admin' } })).revoked_at).not.toBeNull();
    expect(logs.join('')).toContain('stays revoked');
  });

  it('refuses only one of the two', async () => {
    await expect(prepare({ ADMIN_CLIENT_ID: 'x' })).rejects.toThrow(/both/);
  });
});
