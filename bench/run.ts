/**
 * `npm run bench`: our server against the physical limit (bench/physical-limit-server.ts) serving the
 * same records, on the same seeded PostgreSQL database, in the same run, one process each, loaded by
 * autocannon from this process.
 *
 * Environment: BENCH_DATABASE_URL (default the local server's `venture_bench` database, created and
 * seeded on first use), BENCH_ENTITIES (100000), BENCH_SECONDS (10), BENCH_CONNECTIONS (16), BENCH_WORKERS
 * (our server's WEB_CONCURRENCY, default 1 like the physical limit), BENCH_SAMPLES (5: sequential requests per
 * row of the scale table), BENCH_ROUNDS (3: alternating throughput rounds per server, median shown),
 * BENCH_ONLY (`scale` or `throughput` to run one table), BENCH_SCENARIOS (throughput scenarios by a part of
 * their name, comma-separated: `by id,flat`), BENCH_POSTGRAPHILE_URL (PostGraphile v5's
 * /graphql on the same database: the GraphQL scenarios are then also measured against it),
 * BENCH_ACCEPT_ENCODING (sent with our requests, as most HTTP clients send one: `gzip, deflate`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { seedOnce } from './seeded.ts';
import { medianLatency, scaleRequests } from './scale.ts';
import { obtainHeaders, ROOT, startOurServer, type OurServer } from './our-server.ts';
import { LIMIT_SQL, scenarios, type Scenario } from './scenarios.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** Our server's worker processes (WEB_CONCURRENCY); the physical limit always runs one. */
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
/** Throughput rounds per server, alternating; the table shows each server's median round. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_ONLY;
const WANTED = process.env.BENCH_SCENARIOS?.split(',');
/** PostGraphile v5 serving the same database (optional peer for the GraphQL scenarios), e.g. http://127.0.0.1:5791/graphql */
const PEER_URL = process.env.BENCH_POSTGRAPHILE_URL;
const LIMIT_URL = 'http://127.0.0.1:4812';

async function prepareData(): Promise<number[]> {
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL, poolSize: 4 });
  try {
    await seedOnce(db, ENTITIES);
    await printPlans(db.sql);
    const ids = await db.sql.query<{ id: number }>(
      'SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 1000',
    );
    return ids.map((entry) => entry.id);
  } finally {
    await db.close();
  }
}

async function printPlans(sql: { query<Row>(text: string, params?: unknown[]): Promise<Row[]> }): Promise<void> {
  for (const [name, { text, values }] of Object.entries(LIMIT_SQL)) {
    const plan = await sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, name === 'byId' ? [...values, 1] : [...values]);
    const lines = plan.map((line) => line['QUERY PLAN']).filter((line) => /Scan|Limit|Sort/.test(line));
    console.log(`\nEXPLAIN ${name}:\n  ${lines.slice(0, 6).join('\n  ')}`);
  }
}

function start(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(join(ROOT, script), [], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.once('message', () => resolve(child));
  });
}

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** The round of median throughput (its latencies with it), and every round's errors. */
function median(rounds: Measurement[]): Measurement {
  const sorted = [...rounds].sort((a, b) => a.rps - b.rps);
  const middle = sorted[Math.floor(sorted.length / 2)]!;
  return { ...middle, errors: rounds.reduce((sum, round) => sum + round.errors, 0) };
}

async function load(url: string, request: Scenario['ours'], headers: Record<string, string>, seconds: number): Promise<Measurement> {
  const result = await autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    body: request.body,
    headers,
    connections: CONNECTIONS,
    duration: seconds,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/** Every scalar of a GraphQL answer in document order, as text: the same records whatever the field names. */
function leaves(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [String(value)];
  return Object.values(value).flatMap(leaves);
}

/** Refuses to compare our server with a physical limit that does not serve the same records (the same JSON of each). */
async function assertLimitAgrees(ourUrl: string, headers: Record<string, string>, scenario: Scenario): Promise<void> {
  const ours = await fetch(`${ourUrl}${scenario.ours.path}`, { method: scenario.ours.method, headers, body: scenario.ours.body })
    .then((response) => response.json() as Promise<{ data: unknown }>);
  const limit = await fetch(`${LIMIT_URL}${scenario.limit}`).then((response) => response.json() as Promise<{ data: unknown }>);
  if (JSON.stringify(ours.data) !== JSON.stringify(limit.data)) {
    throw new Error(`${scenario.name}: the physical limit serves other records than ours`);
  }
}

/** Refuses to compare throughput of two servers that do not return the same records. */
async function assertPeerAgrees(ourUrl: string, headers: Record<string, string>, scenario: Scenario): Promise<void> {
  const ask = (url: string, body: string, requestHeaders: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: requestHeaders, body }).then((response) => response.json() as Promise<{ data: unknown }>);
  const ours = await ask(`${ourUrl}${scenario.ours.path}`, scenario.ours.body!, headers);
  const peer = await ask(PEER_URL!, JSON.stringify({ query: scenario.peer }), { 'content-type': 'application/json' });
  const [a, b] = [leaves(ours.data), leaves(peer.data)];
  if (a.length === 0 || a.join('\u0000') !== b.join('\u0000')) {
    throw new Error(`${scenario.name}: PostGraphile's answer holds other records than ours (${a.length} vs ${b.length} values)`);
  }
}

function report(rows: { scenario: string; ours: Measurement; limit: Measurement; peer?: Measurement }[]): void {
  const format = (value: number, digits = 0) => value.toFixed(digits).padStart(9);
  console.log(`\n${ENTITIES} entities, ${CONNECTIONS} connections, median of ${ROUNDS} alternating ${SECONDS} s rounds, our server ${WORKERS} process(es), physical limit 1\n`);
  console.log(`${'scenario'.padEnd(26)}${'ours req/s'.padStart(11)}${'limit req/s'.padStart(12)}${'ratio'.padStart(7)}` +
    `${'ours p50'.padStart(10)}${'limit p50'.padStart(10)}${'ours p99'.padStart(10)}${'limit p99'.padStart(10)}`);
  for (const { scenario, ours, limit, peer } of rows) {
    console.log(`${scenario.padEnd(26)}${format(ours.rps)}  ${format(limit.rps, 0)} ${format(ours.rps / limit.rps, 2).slice(3)}` +
      `${format(ours.p50, 1)} ${format(limit.p50, 1)} ${format(ours.p99, 1)} ${format(limit.p99, 1)}`);
    if (ours.errors || limit.errors) console.log(`  errors: ours ${ours.errors}, physical limit ${limit.errors}`);
    if (peer) {
      console.log(`  PostGraphile: ${peer.rps.toFixed(0)} req/s, p50 ${peer.p50.toFixed(1)}, p99 ${peer.p99.toFixed(1)} ms; ` +
        `ours / PostGraphile = ${(ours.rps / peer.rps).toFixed(2)}${peer.errors ? `, errors ${peer.errors}` : ''}`);
    }
  }
  console.log('\nratio = our throughput / the physical limit\'s (1.00 = as fast as one prepared statement straight to the socket); latencies in ms');
}

/** The scale table: what one request costs at this size (median of sequential requests). */
async function scaleTable(url: string, headers: Record<string, string>): Promise<void> {
  const count = await fetch(`${url}/api/entities?limit=1&include_total=true`, { headers })
    .then((response) => response.json() as Promise<{ page: { total: number } }>)
    .then((body) => body.page.total);
  // A cursor about 90% into the list: the next_cursor of the page just before it.
  const before = await fetch(`${url}/api/entities?limit=1&offset=${Math.floor(count * 0.9)}`, { headers })
    .then((response) => response.json() as Promise<{ page: { next_cursor: string } }>);
  console.log(`\nScale: ${count} live entities, median of ${SAMPLES} sequential requests, ms\n`);
  for (const request of scaleRequests(count, before.page.next_cursor)) {
    const median = await medianLatency(url, request, headers, SAMPLES);
    console.log(`${request.name.padEnd(40)}${median.toFixed(1).padStart(10)}`);
  }
}

async function main(): Promise<void> {
  const ids = await prepareData();
  const clientId = 'bench-admin';
  const clientSecret = `vds_${randomBytes(32).toString('base64url')}`;
  const server: OurServer = {
    port: 4811,
    databaseUrl: DATABASE_URL,
    clientId,
    clientSecret,
    env: {
      // The estimate mode a deployment of millions of rows would turn on (docs/read-api.md, Lists).
      EXACT_TOTAL_LIMIT: process.env.EXACT_TOTAL_LIMIT ?? '20000',
      WEB_CONCURRENCY: String(WORKERS),
    },
  };
  const ours = await startOurServer(server);
  const limit = await start('bench/physical-limit-server.ts', { PORT: '4812', DATABASE_URL });
  try {
    const ourUrl = 'http://127.0.0.1:4811';
    const acceptEncoding = process.env.BENCH_ACCEPT_ENCODING;
    const headers = { ...(await obtainHeaders(server)), ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) };
    if (ONLY !== 'throughput') await scaleTable(ourUrl, headers);
    if (ONLY === 'scale') return;
    const rows = [];
    for (const scenario of scenarios(ids).filter(({ name }) => !WANTED || WANTED.some((part) => name.toLowerCase().includes(part)))) {
      const targets: { url: string; request: Scenario['ours']; headers: Record<string, string> }[] = [
        { url: ourUrl, request: scenario.ours, headers },
        // A client asking for compression asks the limit too, which then gzips in one call.
        { url: LIMIT_URL, request: { method: 'GET', path: scenario.limit }, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} },
      ];
      await assertLimitAgrees(ourUrl, headers, scenario);
      if (PEER_URL && scenario.peer) {
        await assertPeerAgrees(ourUrl, headers, scenario);
        targets.push({ url: PEER_URL, request: { method: 'POST', path: '', body: JSON.stringify({ query: scenario.peer }) }, headers: { 'content-type': 'application/json' } });
      }
      for (const target of targets) await load(target.url, target.request, target.headers, 2); // warm-up: JIT, pools, plan caches
      // Alternating rounds, so a moment of load elsewhere on the machine falls on all of them alike.
      const rounds: Measurement[][] = targets.map(() => []);
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const [index, target] of targets.entries()) rounds[index]!.push(await load(target.url, target.request, target.headers, SECONDS));
      }
      const [oursResult, limitResult, peer] = rounds.map(median);
      rows.push({ scenario: scenario.name, ours: oursResult!, limit: limitResult!, peer });
    }
    report(rows);
  } finally {
    ours.kill('SIGTERM');
    limit.kill('SIGTERM');
  }
}

await main();
