// PgBouncer (Debian's package) in transaction pooling mode on a free port, in front of the test
// PostgreSQL server: what a deployment puts between its instances and the database. Its one database,
// `venture`, is the test server's database with the search_path of a test file's schema (and a
// statement timeout), set by connect_query on each server connection (PgBouncer passes no `options`
// startup parameter through).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testPostgresUrl } from './db.ts';

export interface PgBouncer {
  /** The pooler's address for the application (DATABASE_URL). */
  url: string;
  /** SHOW <what> on the admin console, rows as objects. */
  show(what: 'STATS' | 'SERVERS' | 'POOLS' | 'CONFIG'): Promise<Record<string, string>[]>;
  stop(): Promise<void>;
}

export const PGBOUNCER_DATABASE = 'venture';
const BINARY = existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PgBouncerOptions {
  /** The PostgreSQL database it pools (default: the test database). */
  target?: string;
  /** The search_path of every server connection (a test file's schema). */
  schema?: string;
  /** Server connections (default_pool_size). */
  poolSize: number;
  /** Set on each server connection, as `ALTER ROLE ... SET` does in a deployment. */
  statementTimeoutMs?: number;
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const target = new URL(options.target ?? testPostgresUrl());
  const user = decodeURIComponent(target.username) || 'postgres';
  const port = await freePort();
  const folder = mkdtempSync(join(tmpdir(), 'vda-pgbouncer-'));
  const settings = [
    ...(options.schema ? [`SET search_path TO "${options.schema}"`] : []),
    ...(options.statementTimeoutMs ? [`SET statement_timeout = ${options.statementTimeoutMs}`] : []),
  ];
  const ini = [
    '[databases]',
    `${PGBOUNCER_DATABASE} = host=${target.hostname} port=${target.port || 5432} dbname=${target.pathname.slice(1)} user=${user}${settings.length ? ` connect_query='${settings.join('; ')}'` : ''}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize}`,
    'max_client_conn = 200',
    'auth_type = trust',
    `auth_file = ${join(folder, 'users.txt')}`,
    `admin_users = ${user}`,
    'ignore_startup_parameters = extra_float_digits',
  ].join('\n');
  writeFileSync(join(folder, 'pgbouncer.ini'), `${ini}\n`);
  writeFileSync(join(folder, 'users.txt'), `"${user}" ""\n`);
  // PgBouncer refuses to run as root: it then switches to an unprivileged user, who must read its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) for (const path of [folder, join(folder, 'pgbouncer.ini'), join(folder, 'users.txt')]) chmodSync(path, 0o755);
  const child: ChildProcess = spawn(BINARY, [...(asRoot ? ['-u', 'nobody'] : []), join(folder, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const admin = async <T,>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user, database: 'pgbouncer' });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const started = Date.now();
  for (;;) {
    try {
      await admin((client) => client.query('SHOW VERSION'));
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() - started > 10_000) {
        child.kill('SIGKILL');
        throw new Error(`PgBouncer did not start: ${(error as Error).message}\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  return {
    url: `postgres://${user}@127.0.0.1:${port}/${PGBOUNCER_DATABASE}`,
    show: (what) => admin(async (client) => (await client.query(`SHOW ${what}`)).rows as Record<string, string>[]),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
