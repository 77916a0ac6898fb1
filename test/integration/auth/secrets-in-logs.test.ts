// A whole key lifecycle against the real app, then a search of every log line for every secret:
// client secrets, access tokens (and their signatures), Authorization header values, secret hashes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_CREDENTIALS_FILE, ensureFirstAdministrator } from '../../../src/auth/first-admin.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { authHeaders } from '../../helpers/auth.ts';
import { basic, form, json } from './support.ts';

let app: TestApp;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vda-logs-'));
  app = await startTestApp({ env: { DATA_DIR: dataDir } });
});

afterAll(async () => {
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
});

it('logs no secret, token or Authorization value during a full key lifecycle', async () => {
  const secrets: string[] = [];
  const logger = createLogger({
    level: 'trace',
    destination: new Writable({ write: (chunk, _encoding, done) => (app.logs.push(String(chunk)), done()) }),
  });

  // 1. The first administrator, from an empty database.
  await ensureFirstAdministrator({ config: app.config, db: app.db, logger });
  const admin = JSON.parse(await readFile(join(dataDir, ADMIN_CREDENTIALS_FILE), 'utf8'));
  secrets.push(admin.client_secret);

  // 2. Its token, with HTTP Basic; a failed attempt with a wrong audience on the way.
  await app.fetch('/oauth/token', { ...form({ grant_type: 'client_credentials', audience: 'https://wrong.example' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(admin.client_id, admin.client_secret) } });
  const adminToken = (await (await app.fetch('/oauth/token', { ...form({ grant_type: 'client_credentials' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(admin.client_id, admin.client_secret) } })).json()).access_token as string;
  secrets.push(adminToken, basic(admin.client_id, admin.client_secret));

  // 3. A new key, and its token (client_secret_post); a wrong secret on the way.
  const created = await app.fetch('/api/api-keys', json({ name: 'worker', permissions: ['read:entities'] }, authHeaders(adminToken, admin.client_id)));
  expect(created.status).toBe(201);
  const key = (await created.json()).data;
  secrets.push(key.client_secret);
  await app.fetch('/oauth/token', json({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: `${key.client_secret}-wrong` }));
  const keyToken = (await (await app.fetch('/oauth/token', json({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret }))).json()).access_token as string;
  secrets.push(keyToken);

  // 4. Calls: REST, GraphQL, a forbidden one, a token in the query string (a client mistake).
  expect((await app.fetch('/api/entities', { headers: authHeaders(keyToken, key.client_id) })).status).toBe(200);
  await app.fetch('/graphql', json({ query: '{ entities { data { id } } }' }, authHeaders(keyToken, key.client_id)));
  await app.fetch('/api/api-keys', json({ name: 'x', permissions: ['read:entities'] }, authHeaders(keyToken, key.client_id)));
  await app.fetch(`/api/entities?access_token=${keyToken}`, { headers: authHeaders(keyToken, key.client_id) });

  // 5. Revocation, and the refused calls after it.
  expect((await app.fetch(`/api/api-keys/${key.id}`, { method: 'DELETE', headers: authHeaders(adminToken, admin.client_id) })).status).toBe(204);
  expect((await app.fetch('/api/entities', { headers: authHeaders(keyToken, key.client_id) })).status).toBe(401);
  await app.fetch('/oauth/token', json({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret }));

  const hashes = await app.db.sql.query<{ secret_hash: string }>('SELECT secret_hash FROM api_keys');
  const signatures = [adminToken, keyToken].map((token) => token.split('.')[2]!);
  const needles = [...secrets, ...signatures, ...hashes.map((row) => row.secret_hash.split('$').at(-1)!)];

  const logText = app.logs.join('');
  expect(app.logs.length).toBeGreaterThan(10);
  expect(logText).toContain(ADMIN_CREDENTIALS_FILE);
  for (const needle of needles) {
    expect(needle.length).toBeGreaterThan(20);
    expect(logText.includes(needle), `a log line contains ${needle.slice(0, 12)}...`).toBe(false);
  }
});
