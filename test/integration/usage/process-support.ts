// Usage tests against real server processes (dist/main.js): start one on an ephemeral port, get
// tokens from its token endpoint, create keys and read the series over HTTP.
import { randomBytes } from 'node:crypto';
import { startServerProcess, waitForOutput, type ServerProcess } from '../../helpers/server-process.ts';
import { TEST_USER_AGENT } from '../../helpers/auth.ts';
import type { UsageRow } from './support.ts';

export interface RunningServer {
  server: ServerProcess;
  url: string;
}

/** Shared by every process of one test: the administrator key and the address tokens name. */
export function processEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PUBLIC_URL: `http://usage-${randomBytes(4).toString('hex')}.test`,
    ADMIN_CLIENT_ID: 'usage-admin',
    ADMIN_CLIENT_SECRET: `vds_${randomBytes(32).toString('hex')}`,
    ...extra,
  };
}

/** Started once it logs that it listens; `timeoutMs` bounds the wait (a start that loads the demo data set needs more). */
export async function startServer(env: Record<string, string>, cwd?: string, timeoutMs = 60_000): Promise<RunningServer> {
  const server = startServerProcess({ ...env, PORT: '0' }, cwd);
  await waitForOutput(server, /"msg":"listening"/, timeoutMs);
  const port = /"port":(\d+)[^\n]*"msg":"listening"/.exec(server.output())?.[1];
  if (!port) throw new Error(`no port in the listening line:\n${server.output()}`);
  return { server, url: `http://127.0.0.1:${port}` };
}

/** SIGTERM, then the exit code. */
export async function stopServer(running: RunningServer): Promise<number | null> {
  running.server.child.kill('SIGTERM');
  return running.server.exit;
}

export interface Caller {
  clientId: string;
  headers: Record<string, string>;
}

export async function callerFor(url: string, env: Record<string, string>, clientId: string, secret: string): Promise<Caller> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, audience: env.PUBLIC_URL }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return { clientId, headers: { Authorization: `Bearer ${body.access_token}`, 'User-Agent': TEST_USER_AGENT, 'X-Client-Id': clientId } };
}

export const adminOf = (url: string, env: Record<string, string>): Promise<Caller> =>
  callerFor(url, env, env.ADMIN_CLIENT_ID!, env.ADMIN_CLIENT_SECRET!);

/** A new key (POST /api/api-keys) and a token for it. */
export async function createCaller(url: string, env: Record<string, string>, admin: Caller, permissions: string[]): Promise<Caller> {
  const response = await fetch(`${url}/api/api-keys`, {
    method: 'POST',
    headers: { ...admin.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'usage load', permissions }),
  });
  const { data } = (await response.json()) as { data: { client_id: string; client_secret: string } };
  return callerFor(url, env, data.client_id, data.client_secret);
}

/** The series of `clientId` for yesterday and today (daily), read by `reader` from the server at `url`. */
export async function readRecent(url: string, reader: Caller, clientId: string): Promise<UsageRow[]> {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const query = `start_date=${day(-1)}&end_date=${day(0)}&client_id=${encodeURIComponent(clientId)}`;
  const response = await fetch(`${url}/api/usage/timeseries?${query}`, { headers: reader.headers });
  const body = (await response.json()) as { data: UsageRow[] };
  if (response.status !== 200) throw new Error(`usage read failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}
