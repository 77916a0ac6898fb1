// One process per embedded database: a second server on the same DATA_DIR refuses to start, naming
// the first; after the first is killed (-9), the next start takes the stale lock over.
import { mkdtempSync } from 'node:fs';
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

function start(dataDir: string): ServerProcess {
  // No DATABASE_URL: the embedded database, whatever project runs this file.
  const server = startServerProcess({ DATA_DIR: dataDir, PORT: String(freePort()), LOG_LEVEL: 'info' });
  running.push(server);
  return server;
}

it('refuses a second server on the same data directory, and takes over a stale lock', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vda-lock-'));
  const first = start(dataDir);
  await waitForOutput(first, /listening/);

  const second = start(dataDir);
  expect(await second.exit).toBe(1);
  expect(second.output()).toContain(`in use by process ${first.child.pid}`);
  expect(second.output()).not.toMatch(/\n\s+at /); // a message, not a stack trace

  first.child.kill('SIGKILL');
  await first.exit;
  const third = start(dataDir);
  await waitForOutput(third, /listening/);
  expect(third.output()).not.toContain('in use by process');
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
