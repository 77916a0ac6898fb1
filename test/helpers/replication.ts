// A PostgreSQL primary and a streaming replica of it, made with PostgreSQL's own tools (initdb,
// pg_ctl, pg_basebackup -R) on free ports in a temporary folder, for the read-replica tests and bench.
// The servers run as the `postgres` OS user (initdb refuses root): through `runuser` when this process
// is root, directly otherwise.
import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where Debian's postgresql package puts the server's tools (its newest version); PG_BIN overrides. */
const BIN = process.env.PG_BIN ?? join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b)).at(-1) ?? '15', 'bin');

export interface Replication {
  readonly primaryUrl: string;
  readonly replicaUrl: string;
  /** Runs a statement on the replica (its own connection): `SELECT pg_wal_replay_pause()`, statistics. */
  onReplica<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  onPrimary<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /**
   * Pauses the replica's replay (`pg_wal_replay_pause()`) and resolves once it has stopped: a pause
   * takes effect at the next WAL record, so the primary writes one (to `replication_marker`).
   */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  stopReplica(mode?: 'fast' | 'immediate'): Promise<void>;
  startReplica(): Promise<void>;
  /** Stops both servers and removes the folder. */
  close(): Promise<void>;
}

async function postgresUser(): Promise<{ uid: number; gid: number; prefix: string[] }> {
  if (process.getuid?.() !== 0) return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, prefix: [] };
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()), prefix: ['runuser', '-u', 'postgres', '--'] };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function query<Row>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

export async function startReplication(): Promise<Replication> {
  const user = await postgresUser();
  const as = (tool: string, args: string[]) => {
    const [command, ...rest] = [...user.prefix, join(BIN, tool), ...args];
    return run(command!, rest, { env: { ...process.env, LC_ALL: 'C' } });
  };
  const dir = mkdtempSync(join(tmpdir(), 'venture-replication-'));
  chownSync(dir, user.uid, user.gid);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  const stop = (data: string, mode = 'fast') => as('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  const start = async (data: string) => {
    await as('pg_ctl', ['-D', data, '-l', join(data, 'server.log'), '-w', '-t', '60', 'start']);
    if (!started.includes(data)) started.push(data);
  };
  const close = async () => {
    for (const data of started.reverse()) await stop(data, 'immediate').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await as('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Tests and benches, not a durable store: no fsync. Both servers listen on loopback only.
    const common = `listen_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n`;
    appendFileSync(join(primaryDir, 'postgresql.conf'), `${common}port = ${primaryPort}\nwal_level = replica\nmax_wal_senders = 4\n`);
    await start(primaryDir);
    await as('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream']);
    // After the conninfo pg_basebackup wrote: the replica's own port.
    appendFileSync(join(replicaDir, 'postgresql.auto.conf'), `port = ${replicaPort}\nhot_standby = on\n`);
    await start(replicaDir);
  } catch (error) {
    await close();
    throw error;
  }

  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  const caughtUp = async () => {
    const [row] = await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const [replayed] = await query<{ done: boolean }>(replicaUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [row!.lsn]);
      if (replayed?.done) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the replica did not catch up within 30 s');
  };
  return {
    primaryUrl,
    replicaUrl,
    onReplica: (sql, params) => query(replicaUrl, sql, params),
    onPrimary: (sql, params) => query(primaryUrl, sql, params),
    caughtUp,
    pauseReplay: async () => {
      await query(primaryUrl, 'CREATE TABLE IF NOT EXISTS replication_marker (at timestamptz)');
      await caughtUp();
      await query(replicaUrl, 'SELECT pg_wal_replay_pause()');
      await query(primaryUrl, 'INSERT INTO replication_marker VALUES (now())');
      for (let attempt = 0; attempt < 600; attempt += 1) {
        const [row] = await query<{ state: string }>(replicaUrl, 'SELECT pg_get_wal_replay_pause_state() AS state');
        if (row?.state === 'paused') return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the replica did not pause within 30 s');
    },
    resumeReplay: async () => void (await query(replicaUrl, 'SELECT pg_wal_replay_resume()')),
    stopReplica: async (mode = 'fast') => void (await stop(replicaDir, mode)),
    startReplica: () => start(replicaDir),
    close,
  };
}
