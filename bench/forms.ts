/**
 * `npm run bench:forms`: the same reads in the forms real clients send them, each against its plainest
 * form on the same server in the same run (alternating rounds), and a client asking for gzip against the
 * physical limit that gzips in one call. Our server runs as a deployment with CORS_ORIGINS set, so a
 * browser's request (Origin) and a script's (none) reach the same process.
 *
 * Uses the database `npm run bench` seeds (BENCH_DATABASE_URL, default the local `venture_bench`); run
 * that first. BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (16).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { obtainHeaders, ROOT, startOurServer, type OurServer } from './our-server.ts';
import { FLAT_QUERY, LIST_FILTER } from './scenarios.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ORIGIN = 'https://app.example.com';
const OURS = 'http://127.0.0.1:4821';
const LIMIT = 'http://127.0.0.1:4822';
const BROWSER = { origin: ORIGIN, 'accept-encoding': 'gzip, deflate, br', accept: '*/*' };

interface Target {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers: Record<string, string>;
}

async function rps(target: Target): Promise<number> {
  const result = await autocannon({ url: `${target.url}${target.path}`, method: target.method, body: target.body, headers: target.headers, connections: CONNECTIONS, duration: SECONDS });
  if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${target.path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

/** Median requests per second of each target, over alternating rounds (after a warm-up of each). */
async function compare(targets: Target[]): Promise<number[]> {
  for (const target of targets) await autocannon({ ...target, url: `${target.url}${target.path}`, connections: CONNECTIONS, duration: 2 });
  const rounds: number[][] = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) for (const [index, target] of targets.entries()) rounds[index]!.push(await rps(target));
  return rounds.map((values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
}

function startLimit(): Promise<ChildProcess> {
  const child = fork(join(ROOT, 'bench/physical-limit-server.ts'), [], {
    cwd: ROOT,
    env: { ...process.env, PORT: '4822', DATABASE_URL },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the physical limit exited with ${code}`)));
    child.once('message', () => resolve(child));
  });
}

async function main(): Promise<void> {
  const client = new pg.Client(DATABASE_URL);
  await client.connect();
  const { rows } = await client.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 1 OFFSET 500');
  await client.end();
  const id = rows[0]!.id;
  const server: OurServer = {
    port: 4821,
    databaseUrl: DATABASE_URL,
    clientId: 'bench-forms',
    clientSecret: `vds_${randomBytes(32).toString('base64url')}`,
    env: { EXACT_TOTAL_LIMIT: '20000', CORS_ORIGINS: ORIGIN },
  };
  const ours = await startOurServer(server);
  const limit = await startLimit();
  try {
    const token = await obtainHeaders(server);
    const reads: { name: string; ours: Omit<Target, 'url' | 'headers'>; limit?: string }[] = [
      { name: 'REST entity by id', ours: { method: 'GET', path: `/api/entities/${id}` }, limit: `/entities/${id}` },
      { name: 'REST list, filter + sort', ours: { method: 'GET', path: `/api/entities?filter=${encodeURIComponent(LIST_FILTER)}&sort=-total_funding_usd&limit=25` }, limit: '/list' },
      { name: 'GraphQL flat, 25 × 10', ours: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: FLAT_QUERY }) }, limit: '/flat' },
    ];
    console.log(`\n${CONNECTIONS} connections, median of ${ROUNDS} alternating ${SECONDS} s rounds; a form / its plainest form on the same server\n`);
    for (const read of reads) {
      const json: Record<string, string> = read.ours.method === 'POST' ? { 'content-type': 'application/json' } : {};
      const plain: Target = { ...read.ours, url: OURS, headers: { ...token, ...json } };
      const forms: [string, Target][] = [
        ['conditional (If-None-Match, stale)', { ...plain, headers: { ...plain.headers, 'if-none-match': 'W/"stale"' } }],
        ['browser, CORS + gzip', { ...plain, headers: { ...plain.headers, ...BROWSER } }],
      ];
      const [base, ...measured] = await compare([plain, ...forms.map(([, target]) => target)]);
      console.log(`${read.name}: plain ${base!.toFixed(0)} req/s`);
      for (const [index, [name]] of forms.entries()) console.log(`  ${name.padEnd(36)} ${measured[index]!.toFixed(0).padStart(7)} req/s  ${(measured[index]! / base!).toFixed(2)} of plain`);
      if (read.limit) {
        const gzip = { 'accept-encoding': 'gzip' };
        const [oursGzip, limitGzip] = await compare([{ ...plain, headers: { ...plain.headers, ...gzip } }, { url: LIMIT, method: 'GET', path: read.limit, headers: gzip }]);
        console.log(`  ${'gzip client vs the gzipping limit'.padEnd(36)} ${oursGzip!.toFixed(0).padStart(7)} req/s  ${(oursGzip! / limitGzip!).toFixed(2)} of the limit (${limitGzip!.toFixed(0)} req/s)`);
      }
    }
  } finally {
    ours.kill('SIGTERM');
    limit.kill('SIGTERM');
  }
}

await main();
