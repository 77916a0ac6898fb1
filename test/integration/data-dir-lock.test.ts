// One process per embedded database: a second server on the same DATA_DIR refuses to start, naming
// the first; after the first is killed (-9) right after acknowledged writes, the next start takes the
// stale lock over and every acknowledged write is there.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { freePort, startServerProcess, waitForOutput, type ServerProcess } from '../helpers/server-process.ts';

const running: ServerProcess[] = [];

afterEach(async () => {
  for (const server of running.splice(0)) {
    server.child.kill('SIGKILL');
    await server.exit;
  }
});

let port = 0;

function start(dataDir: string): ServerProcess {
  port = freePort();
  // No DATABASE_URL: the embedded database, whatever project runs this file.
  const server = startServerProcess({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
  running.push(server);
  return server;
}

/** The first administrator's headers, from the credentials file the first start wrote. */
async function adminHeaders(dataDir: string, base: string): Promise<Record<string, string>> {
  const { client_id, client_secret } = JSON.parse(readFileSync(join(dataDir, 'admin-credentials.json'), 'utf8'));
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
  });
  const { access_token } = (await response.json()) as { access_token: string };
  return { Authorization: `Bearer ${access_token}`, 'X-Client-Id': client_id, 'User-Agent': 'lock-test/1.0 (tests@example.com)' };
}

it('refuses a second server on the same data directory, and takes over a stale lock', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vda-lock-'));
  const first = start(dataDir);
  const firstUrl = `http://127.0.0.1:${port}`;
  await waitForOutput(first, /listening/);

  const second = start(dataDir);
  expect(await second.exit).toBe(1);
  expect(second.output()).toContain(`in use by process ${first.child.pid}`);
  expect(second.output()).not.toMatch(/\n\s+at /); // a message, not a stack trace

  // Acknowledged writes, then kill -9 at once: none of them may be lost.
  const headers = await adminHeaders(dataDir, firstUrl);
  const names: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    const name = `written before kill ${i}`;
    const response = await fetch(`${firstUrl}/api/api-keys`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name, permissions: ['read:entities'] }),
    });
    expect(response.status).toBe(201);
    names.push(name);
  }
  first.child.kill('SIGKILL');
  await first.exit;
  const third = start(dataDir);
  await waitForOutput(third, /listening/);
  expect(third.output()).not.toContain('in use by process');
  const thirdUrl = `http://127.0.0.1:${port}`;
  const listed = (await (await fetch(`${thirdUrl}/api/api-keys?limit=100`, { headers: await adminHeaders(dataDir, thirdUrl) })).json()) as {
    data: { name: string }[];
  };
  expect(listed.data.map((key) => key.name)).toEqual(expect.arrayContaining(names));
}, 90_000);

it('lets a server start after another stopped cleanly on the same directory', async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'vda-lock-')), 'data');
  const first = start(dataDir);
  await waitForOutput(first, /listening/);
  first.child.kill('SIGTERM');
  expect(await first.exit).toBe(0);
  const second = start(dataDir);
  await waitForOutput(second, /listening/);
}, 90_000);
