// The service as a real process, as `npm start` runs it (the compiled dist/main.js, built by
// test/global-setup.ts), for tests of start-up, signals and several instances.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createDatabase, databaseUrl, dropDatabases } from './postgres-admin.ts';
import { START_NODE_FLAGS } from './start-command.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

/**
 * Servers still running when their test file ends are killed: a test that failed before stopping its
 * server would otherwise leave it serving, and loading the machine, for the rest of the run.
 */
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** `cwd` defaults to the package root; the service finds its files from its own location, not the cwd. */
export function startServerProcess(env: Record<string, string>, cwd = ROOT): ServerProcess {
  const child = spawn(process.execPath, [...START_NODE_FLAGS, join(ROOT, 'dist/main.js')], {
    cwd,
    env: {
      PATH: process.env.PATH,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'vda-process-')),
      LOAD_DEMO_DATA: 'false',
      HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  running.add(child);
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, output: () => output, exit };
}

export async function waitForOutput(server: ServerProcess, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!pattern.test(server.output())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${pattern}; output:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const freePort = (): number => 20_000 + Math.floor(Math.random() * 20_000);

/**
 * A PostgreSQL database of its own on the test server (a server process uses the `public` schema of
 * its database, so it cannot share one with other tests). Returns its URL and a function dropping it.
 */
export async function createScratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = await createDatabase('vda_scratch');
  return { url: databaseUrl(name), drop: () => dropDatabases(name) };
}
