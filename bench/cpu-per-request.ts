/**
 * `npm run bench:cpu`: where a request's CPU goes, party by party, for our server and the physical
 * limit under the same load. A CPU profile of a server sharing two cores with PostgreSQL and the load
 * generator counts the time its thread waits for a core inside `writev` (a write to loopback wakes the
 * reader, which may take the core): it showed a third of our time in socket writes that strace times
 * at 12 µs each, as the limit's. The kernel's own accounting does not: this reads each party's user
 * and system CPU (/proc/<pid>/stat, the sum over PostgreSQL's processes, this process for autocannon)
 * before and after a fixed load and divides by the requests served.
 *
 * Run after `npm run bench` has seeded the database (BENCH_DATABASE_URL, default `venture_bench`).
 * BENCH_SCENARIOS picks scenarios by a part of their name (default `by id,flat`), BENCH_SECONDS (6)
 * per round, BENCH_ROUNDS (2) alternating rounds, 16 connections. With BENCH_POSTGRAPHILE_URL, the
 * peer (found by the port it listens on) is measured too on the scenarios it has a query for.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { obtainHeaders, ROOT, startOurServer, type OurServer } from './our-server.ts';
import { cpuOf } from './process-cpu.ts';
import { scenarios } from './scenarios.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench';
const WANTED = (process.env.BENCH_SCENARIOS ?? 'by id,flat').split(',');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PEER_URL = process.env.BENCH_POSTGRAPHILE_URL;


/**
 * The CPU of each PostgreSQL process alive now, by pid, and what the postmaster has collected from its
 * ended children (a backend's CPU moves there when it exits): a pool that retires its connections ends
 * backends during a round, and counting live processes only would leave their work out.
 */
function postgresCpu(): { live: Map<number, number>; ended: number } {
  const live = new Map<number, number>();
  let ended = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      const { user, system, childrenUser, childrenSystem, parentPid } = cpuOf(Number(entry));
      live.set(Number(entry), user + system);
      // The postmaster is the PostgreSQL process whose parent is not one.
      if (!isPostgres(parentPid)) ended += childrenUser + childrenSystem;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return { live, ended };
}

function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
}

/** What PostgreSQL's processes spent between two readings: those alive at the second, and those that ended between. */
function postgresSpent(before: ReturnType<typeof postgresCpu>, after: ReturnType<typeof postgresCpu>): number {
  let spent = after.ended - before.ended;
  for (const [pid, cpu] of after.live) spent += cpu - (before.live.get(pid) ?? 0);
  return spent;
}

/** The pid of the process listening on a URL's port (the peer is started by its own script). */
function listenerPid(url: string): number {
  const listing = execFileSync('ss', ['-ltnpH', `sport = :${new URL(url).port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(listing)?.[1];
  if (!pid) throw new Error(`nothing listens on ${url}`);
  return Number(pid);
}

function startLimit(): Promise<ChildProcess> {
  const child = fork(join(ROOT, 'bench/physical-limit-server.ts'), [], {
    cwd: ROOT,
    env: { ...process.env, PORT: '4832', DATABASE_URL },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve) => child.once('message', () => resolve(child)));
}

const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
const ids = (await pool.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 1000')).rows.map((row) => row.id);
await pool.end();
if (ids.length === 0) throw new Error(`${DATABASE_URL} holds no entities: run npm run bench first`);

const server: OurServer = { port: 4831, databaseUrl: DATABASE_URL, clientId: 'bench-admin', clientSecret: `vds_${randomBytes(32).toString('base64url')}`, env: { EXACT_TOTAL_LIMIT: '20000' } };
const ours = await startOurServer(server);
const limit = await startLimit();
try {
  const headers = await obtainHeaders(server);
  console.log('µs of CPU per request (user + system), 16 connections');
  console.log('scenario                   server  req/s   server (sys)   PostgreSQL   load generator   all');
  for (const scenario of scenarios(ids).filter((candidate) => WANTED.some((part) => candidate.name.toLowerCase().includes(part)))) {
    const targets = [
      { name: 'ours', pid: ours.pid!, url: `http://127.0.0.1:${server.port}${scenario.ours.path}`, method: scenario.ours.method, body: scenario.ours.body, headers },
      { name: 'limit', pid: limit.pid!, url: `http://127.0.0.1:4832${scenario.limit}`, method: 'GET', body: undefined, headers: {} },
    ];
    if (PEER_URL && scenario.peer) {
      const body = JSON.stringify({ query: scenario.peer });
      targets.push({ name: 'peer', pid: listenerPid(PEER_URL), url: PEER_URL, method: 'POST', body, headers: { 'content-type': 'application/json' } });
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const target of targets) {
        const load = (seconds: number) =>
          autocannon({ url: target.url, method: target.method as 'GET', body: target.body, headers: target.headers, connections: 16, duration: seconds });
        if (round === 0) await load(2);
        const server0 = cpuOf(target.pid);
        const postgres0 = postgresCpu();
        const own0 = process.cpuUsage();
        const result = await load(SECONDS);
        const server1 = cpuOf(target.pid);
        const postgres = postgresSpent(postgres0, postgresCpu());
        const own = process.cpuUsage(own0);
        const per = (micros: number) => (micros / result.requests.total).toFixed(0).padStart(5);
        const serverCpu = server1.user + server1.system - server0.user - server0.system;
        const all = serverCpu + postgres + own.user + own.system;
        console.log(
          `${scenario.name.padEnd(26)} ${target.name.padEnd(6)} ${String(Math.round(result.requests.average)).padStart(5)}   ${per(serverCpu)} (${per(server1.system - server0.system)})   ${per(postgres)}        ${per(own.user + own.system)}            ${per(all)}`,
        );
      }
    }
  }
} finally {
  ours.kill('SIGTERM');
  limit.kill('SIGTERM');
}
