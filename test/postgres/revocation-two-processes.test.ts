// Two server processes on one PostgreSQL database, each keeping API key states in memory: a key
// revoked through one is refused by the other on the very next request (LISTEN/NOTIFY), and both
// keep serving other keys.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_USER_AGENT } from '../helpers/auth.ts';
import {
  createScratchDatabase,
  freePort,
  startServerProcess,
  waitForOutput,
  type ServerProcess,
} from '../helpers/server-process.ts';

const PUBLIC_URL = 'http://api.revocation.test';
const ADMIN_ID = 'admin-two-processes';
const ADMIN_SECRET = `vds_${randomBytes(24).toString('base64url')}`;

let database: { url: string; drop(): Promise<void> };
const servers: { process: ServerProcess; url: string }[] = [];

async function start(): Promise<void> {
  const port = freePort();
  const process = startServerProcess({
    DATABASE_URL: database.url,
    PORT: String(port),
    PUBLIC_URL,
    ADMIN_CLIENT_ID: ADMIN_ID,
    ADMIN_CLIENT_SECRET: ADMIN_SECRET,
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
  });
  servers.push({ process, url: `http://127.0.0.1:${port}` });
  await waitForOutput(process, /"msg":"listening"/);
}

beforeAll(async () => {
  database = await createScratchDatabase();
  // One after the other: the first prepares the database (migrations, the admin key).
  await start();
  await start();
}, 90_000);

afterAll(async () => {
  for (const { process } of servers) process.child.kill('SIGTERM');
  await Promise.all(servers.map(({ process }) => process.exit));
  await database.drop();
});

async function token(url: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: PUBLIC_URL }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

const headers = (accessToken: string, clientId: string) => ({
  authorization: `Bearer ${accessToken}`,
  'x-client-id': clientId,
  'user-agent': TEST_USER_AGENT,
  'content-type': 'application/json',
});

it('refuses a key on the other process as soon as one process revokes it', async () => {
  const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]];
  const admin = headers(await token(first.url, ADMIN_ID, ADMIN_SECRET), ADMIN_ID);
  const created = await fetch(`${first.url}/api/api-keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: 'worker', permissions: ['read:entities'] }),
  });
  expect(created.status).toBe(201);
  const worker = (await created.json()) as { data: { id: number; client_id: string; client_secret: string } };
  const { id, client_id: clientId, client_secret: clientSecret } = worker.data;
  const workerHeaders = headers(await token(second.url, clientId, clientSecret), clientId);

  // Both processes have served the key, so both hold it in memory as active.
  for (let round = 0; round < 3; round += 1) {
    for (const { url } of servers) expect((await fetch(`${url}/api/entities?limit=1`, { headers: workerHeaders })).status).toBe(200);
  }

  const revoked = await fetch(`${first.url}/api/api-keys/${id}`, { method: 'DELETE', headers: admin });
  expect(revoked.status).toBe(204);
  const refused = await fetch(`${second.url}/api/entities?limit=1`, { headers: workerHeaders });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toMatch(/invalid_token/);
  expect((await fetch(`${first.url}/api/entities?limit=1`, { headers: workerHeaders })).status).toBe(401);
  const graphql = await fetch(`${second.url}/graphql`, { method: 'POST', headers: workerHeaders, body: '{"query":"{ __typename }"}' });
  expect(graphql.status).toBe(401);

  // The admin's key, also held in memory, is unaffected.
  for (const { url } of servers) expect((await fetch(`${url}/api/entities?limit=1`, { headers: admin })).status).toBe(200);
}, 60_000);
