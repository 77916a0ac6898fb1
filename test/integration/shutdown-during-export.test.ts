// SIGTERM while an export of an aggregate over the demo data set is in flight (limit=1 over 24,256
// groups, which ran one aggregate per group before): the process exits 0 within SHUTDOWN_TIMEOUT_MS,
// on the embedded database and on PostgreSQL. On PostgreSQL the process starts on a copy of the demo
// database the test run loads once (test/helpers/demo-database.ts) rather than loading its own; the
// embedded database's process loads it at start, as `npm start` does.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testDatabaseKind, type TestDatabase } from '../helpers/db.ts';
import { createDemoDatabase } from '../helpers/demo-database.ts';
import { freePort, startServerProcess, waitForOutput, type ServerProcess } from '../helpers/server-process.ts';

let database: TestDatabase | undefined;
let server: ServerProcess | undefined;

beforeAll(async () => {
  if (testDatabaseKind() === 'postgres') database = await createDemoDatabase();
}, 600_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exit;
  }
  await database?.destroy();
}, 60_000);

it('stops within the shutdown timeout while an aggregate export runs', async () => {
  const port = freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'vda-shutdown-'));
  server = startServerProcess({
    ...(database ? { DATABASE_URL: database.connection.url! } : {}),
    DATA_DIR: dataDir,
    PORT: String(port),
    LOAD_DEMO_DATA: 'true',
    SHUTDOWN_TIMEOUT_MS: '3000',
    // The demo load's derived columns are one statement each: on a busy test machine they outlast the default.
    DATABASE_STATEMENT_TIMEOUT_MS: '300000',
  });
  await waitForOutput(server, /"msg":"listening"/, 500_000);
  const base = `http://127.0.0.1:${port}`;
  const { client_id, client_secret } = JSON.parse(readFileSync(join(dataDir, 'admin-credentials.json'), 'utf8')) as { client_id: string; client_secret: string };
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
  });
  const { access_token } = (await token.json()) as { access_token: string };

  const response = await fetch(`${base}/api/aggregate/entities?metric=count&group_by=name&limit=1&format=csv`, {
    headers: { Authorization: `Bearer ${access_token}`, 'X-Client-Id': client_id, 'User-Agent': 'shutdown-test/1.0 (tests@example.com)' },
  });
  if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
  // A slow reader: the first chunk, then the signal while the rest is still to come.
  const reader = response.body!.getReader();
  await reader.read();
  const signalled = Date.now();
  server.child.kill('SIGTERM');
  const drain = (async () => {
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) await new Promise((resolve) => setTimeout(resolve, 50));
    } catch {
      // cut at the deadline
    }
  })();
  expect(await server.exit).toBe(0);
  const took = Date.now() - signalled;
  console.info(`${testDatabaseKind()}: exited ${took} ms after SIGTERM with an aggregate export in flight`);
  expect(took).toBeLessThan(3_000 + 1_000);
  await drain;
}, 600_000);
