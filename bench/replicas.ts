/**
 * `npm run bench:replicas`: one primary and one streaming replica (made as the tests make them,
 * test/helpers/replication.ts), the same read load on our server twice: on the primary alone, then
 * with DATABASE_REPLICA_URLS. It checks that both runs answer every request of the load with the same
 * bodies, then prints throughput and what each server did, from their own statistics: transactions
 * committed (every statement outside a transaction is one) and scans of the data tables. A server's
 * statistics are flushed when its sessions end, so each run's are read after our server has stopped.
 *
 * Environment: BENCH_ENTITIES (20000), BENCH_SECONDS (10), BENCH_CONNECTIONS (16).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { openDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/data/seed/index.ts';
import { startReplication, type Replication } from '../test/helpers/replication.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';

const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

/** The read load: lists with filters and sorts, records by id, an aggregate, a nested GraphQL query. */
const REQUESTS: { method: 'GET' | 'POST'; path: string; body?: string }[] = [
  { method: 'GET', path: '/api/entities?filter=hq_country:Germany&sort=name&limit=25' },
  { method: 'GET', path: '/api/entities?limit=50&include_total=true' },
  { method: 'GET', path: '/api/investors?limit=25' },
  { method: 'GET', path: '/api/transactions?limit=25' },
  ...[7, 101, 555, 1234].map((id) => ({ method: 'GET' as const, path: `/api/entities/${id}` })),
  { method: 'GET', path: '/api/aggregate/entities?metric=count&group_by=hq_country&limit=10' },
  { method: 'POST', path: '/graphql', body: JSON.stringify({ query: '{ entities(limit: 10, sort: "name") { data { id name founders { name companies { entity { name } } } } } }' }) },
];

const DATA_TABLES = "('entities', 'founders', 'investors', 'transactions', 'founder_companies', 'entity_tags', 'tags')";

interface ServerStats {
  commits: number;
  scans: number;
}

async function stats(replication: Replication, on: 'primary' | 'replica'): Promise<ServerStats> {
  const sql = `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres')::float8 AS commits,
    (SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables WHERE relname IN ${DATA_TABLES})::float8 AS scans`;
  const [row] = on === 'primary' ? await replication.onPrimary<ServerStats>(sql) : await replication.onReplica<ServerStats>(sql);
  return row!;
}

async function bodies(server: OurServer, headers: Record<string, string>): Promise<string[]> {
  return Promise.all(REQUESTS.map(async (request) => {
    const response = await fetch(`http://127.0.0.1:${server.port}${request.path}`, { method: request.method, headers, body: request.body });
    if (response.status !== 200) throw new Error(`${request.path} answered ${response.status}`);
    return response.text();
  }));
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

interface Run {
  name: string;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  primary: ServerStats;
  replica: ServerStats;
  bodies: string[];
}

async function measure(replication: Replication, name: string, env: Record<string, string>, port: number): Promise<Run> {
  const server: OurServer = { port, databaseUrl: replication.primaryUrl, clientId: 'bench-admin', clientSecret: 'bench-admin-secret-0123456789', env };
  const before = { primary: await stats(replication, 'primary'), replica: await stats(replication, 'replica') };
  const child = await startOurServer(server);
  let result: autocannon.Result;
  let answered: string[];
  try {
    const headers = await obtainHeaders(server);
    answered = await bodies(server, headers);
    result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: CONNECTIONS,
      duration: SECONDS,
      requests: REQUESTS.map((request) => ({ method: request.method, path: request.path, headers, ...(request.body ? { body: request.body } : {}) })),
    });
  } finally {
    await stop(child);
  }
  const after = { primary: await stats(replication, 'primary'), replica: await stats(replication, 'replica') };
  const delta = (on: 'primary' | 'replica'): ServerStats => ({
    commits: after[on].commits - before[on].commits,
    scans: after[on].scans - before[on].scans,
  });
  return {
    name,
    requests: result.requests.total,
    errors: result.errors + result.non2xx,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    primary: delta('primary'),
    replica: delta('replica'),
    bodies: answered,
  };
}

async function main(): Promise<void> {
  console.log('Starting a primary and a streaming replica...');
  const replication = await startReplication();
  try {
    const db = await openDatabase({ url: replication.primaryUrl, poolSize: 4 });
    try {
      await migrate(db.sql);
      const started = Date.now();
      await seedDatabase(db, { entities: ENTITIES });
      console.log(`Seeded ${ENTITIES} entities in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await db.close();
    }
    await replication.caughtUp();

    const alone = await measure(replication, 'primary alone', {}, 4821);
    const replicated = await measure(replication, 'with DATABASE_REPLICA_URLS', { DATABASE_REPLICA_URLS: replication.replicaUrl }, 4822);
    const differing = REQUESTS.filter((_request, index) => alone.bodies[index] !== replicated.bodies[index]).map((request) => request.path);
    if (differing.length) throw new Error(`the runs answered differently: ${differing.join(', ')}`);
    console.log(`\nBodies: all ${REQUESTS.length} requests of the load answered the same in both runs.`);
    console.log(`${ENTITIES} entities, ${CONNECTIONS} connections, ${SECONDS} s per run\n`);
    console.log('| run | requests | errors | req/s | p50 / p99 ms | primary: commits per 1k req | primary: data scans per 1k req | replica: commits per 1k req | replica: data scans per 1k req |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const run of [alone, replicated]) {
      const per = (value: number) => Math.round((value / run.requests) * 1_000);
      console.log(`| ${run.name} | ${run.requests} | ${run.errors} | ${Math.round(run.rps)} | ${run.p50} / ${run.p99} | ${per(run.primary.commits)} | ${per(run.primary.scans)} | ${per(run.replica.commits)} | ${per(run.replica.scans)} |`);
    }
  } finally {
    await replication.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
