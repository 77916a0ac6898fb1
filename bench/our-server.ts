/**
 * Our server as the benches run it: its own process (dist/main.js, as `npm start` runs it) on a database, an administrator key
 * they know, rate limits out of the way (a bench measures serving, not refusals), and the headers of
 * a token for that key.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { START_NODE_FLAGS } from '../test/helpers/start-command.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface OurServer {
  port: number;
  databaseUrl: string;
  /** The tokens' issuer and audience; servers sharing one accept each other's tokens. */
  publicUrl?: string;
  clientId: string;
  clientSecret: string;
  /** More of the environment (EXACT_TOTAL_LIMIT, WEB_CONCURRENCY, USAGE_COUNTING, ...). */
  env?: Record<string, string>;
  /** More flags for node (`--cpu-prof`, which NODE_OPTIONS does not accept). */
  execArgv?: string[];
}

let built = false;
/** Compiles dist/ once per bench run, so the bench measures the sources as they are. */
export function buildServer(): void {
  if (built) return;
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
  built = true;
}

/** The environment our server runs with in a bench. */
export function serverEnvironment(server: OurServer): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(server.port),
    HOST: '127.0.0.1',
    PUBLIC_URL: server.publicUrl ?? `http://127.0.0.1:${server.port}`,
    DATABASE_URL: server.databaseUrl,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'vda-bench-')),
    LOAD_DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
    ADMIN_CLIENT_ID: server.clientId,
    ADMIN_CLIENT_SECRET: server.clientSecret,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    ...server.env,
  };
}

export async function startOurServer(server: OurServer): Promise<ChildProcess> {
  buildServer();
  const child = fork(join(ROOT, 'dist/main.js'), [], {
    cwd: ROOT,
    env: serverEnvironment(server),
    execArgv: [...START_NODE_FLAGS, ...(server.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  for (let attempt = 0; attempt < 120; attempt += 1) {
    if (await fetch(`http://127.0.0.1:${server.port}/readyz`).then((response) => response.ok, () => false)) return child;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  child.kill('SIGKILL');
  throw new Error(`our server on port ${server.port} did not become ready`);
}

/** A token for the server's administrator key, as the headers every API request carries. */
export async function obtainHeaders(server: OurServer): Promise<Record<string, string>> {
  const audience = server.publicUrl ?? `http://127.0.0.1:${server.port}`;
  const response = await fetch(`http://127.0.0.1:${server.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: server.clientId, client_secret: server.clientSecret, audience }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  const { access_token: token } = (await response.json()) as { access_token: string };
  return {
    authorization: `Bearer ${token}`,
    'x-client-id': server.clientId,
    'user-agent': 'venture-data-api-bench/1.0 (bench@example.org)',
    'content-type': 'application/json',
  };
}
