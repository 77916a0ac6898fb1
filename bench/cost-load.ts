/**
 * What a request can buy, against our server on the demo data, over HTTP (bench/README.md, "Cost of a
 * request: similar under a list, match aliases"): for each request below, its time and answer, and how
 * long record reads (GET /api/entities/{id}, one at a time) wait while it runs.
 *
 *  - `similar` under a list of 500: refused by its cost (a search per row, src/graphql/work-charges.ts);
 *  - `similar` under the longest list the fan-out budget lets through (one statement: compiled);
 *  - `similar` on a page of 25 with every field of the entity (compiled: one statement);
 *  - 15 aliases of a 1,000-record match: refused (one budget of 1,000 records a request).
 *
 *   npx tsx bench/cost-load.ts                                   # PostgreSQL, database venture_bench_cost_demo
 *   BENCH_DATABASE_URL=embedded npx tsx bench/cost-load.ts       # the embedded database, in BENCH_DATA_DIR
 *
 * The demo data is loaded first if the database is empty. Each request is sent BENCH_RUNS (3) times.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { loadDemoDataIfEmpty } from '../src/data/demo.ts';
import { SIMILAR_SEARCH_CHARGE } from '../src/compile/similar-schema.ts';
import { getOperationAST, parse } from 'graphql';
import { getSchema } from '../src/api-schema.ts';
import { fanOutCost } from '../src/graphql/fan-out-cost.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';

const TARGET = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench_cost_demo';
const EMBEDDED = TARGET === 'embedded';
const DATA_DIR = process.env.BENCH_DATA_DIR ?? '/tmp/vda-bench-cost-demo';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** GRAPHQL_MAX_FAN_OUT's default (src/config.ts). */
const FAN_OUT_BUDGET = 25_000;

const quiet = { info: () => undefined, warn: console.warn };

async function openTarget(): Promise<Database> {
  if (EMBEDDED) return openDatabase({ dataDir: join(DATA_DIR, 'pglite'), poolSize: 1 });
  await ensureDatabase(TARGET);
  return openDatabase({ url: TARGET, poolSize: 2 });
}

async function prepare(): Promise<number[]> {
  const db = await openTarget();
  try {
    await migrate(db.sql);
    await loadDemoDataIfEmpty(db, quiet as never);
    return (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY md5(id::text) LIMIT 500')).map((row) => Number(row.id));
  } finally {
    await db.close();
  }
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;

const similarUnder = (rows: number) => `{ entities(limit: ${rows}) { data { id similar { data { id score } } } } }`;
/** The longest page whose rows' similar companies the fan-out budget lets through, as the server counts it. */
const LONGEST = (() => {
  const costOf = (rows: number) => {
    const document = parse(similarUnder(rows));
    return fanOutCost(getSchema(), document, getOperationAST(document)!, {});
  };
  let rows = 1;
  while (costOf(rows + 1) <= FAN_OUT_BUDGET) rows += 1;
  return rows;
})();

const records = Array.from({ length: 1000 }, (_, index) => ({ name: `Company ${index}`, hq_country: 'Germany' }));
const REQUESTS: { name: string; query: string; variables?: Record<string, unknown> }[] = [
  { name: 'similar under a list of 500', query: similarUnder(500) },
  { name: `similar under a list of ${LONGEST} (the budget's longest; search charge ${SIMILAR_SEARCH_CHARGE})`, query: similarUnder(LONGEST) },
  {
    name: 'every entity field and similar, a page of 25',
    query: '{ entities(limit: 25) { data { id name website hq_country hq_city launch_year total_funding_usd tags { name } founders { name } similar(limit: 5) { data { id name score reasons { kind detail weight } } } } } }',
  },
  {
    name: '15 aliases of a 1,000-record match',
    query: `query ($r: [JSON!]!) { ${Array.from({ length: 15 }, (_, index) => `m${index}: match(records: $r) { data { status } }`).join(' ')} }`,
    variables: { r: records },
  },
];

async function main(): Promise<void> {
  const ids = await prepare();
  const server: OurServer = {
    port: 4834,
    databaseUrl: EMBEDDED ? '' : TARGET,
    clientId: 'bench-cost',
    clientSecret: `vds_${randomBytes(32).toString('base64url')}`,
    ...(EMBEDDED ? { env: { DATA_DIR } } : {}),
  };
  const child = await startOurServer(server);
  try {
    const headers = await obtainHeaders(server);
    const base = `http://127.0.0.1:${server.port}`;
    let next = 0;
    const read = async () => {
      const started = performance.now();
      const response = await fetch(`${base}/api/entities/${ids[next++ % ids.length]}`, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`a read answered ${response.status}`);
      return performance.now() - started;
    };
    const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${base}/metrics`, { headers })).text())?.[1] ?? NaN);
    const send = async (request: (typeof REQUESTS)[number]) => {
      const started = performance.now();
      const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query: request.query, variables: request.variables }) });
      const body = (await response.json()) as { data?: unknown; errors?: { message: string }[] };
      const ms = performance.now() - started;
      return { ms, outcome: body.errors ? `refused: ${body.errors[0]!.message.slice(0, 90)}` : `answered ${JSON.stringify(body.data).length} bytes` };
    };
    for (let warm = 0; warm < 20; warm += 1) await read();
    const idle: number[] = [];
    for (let n = 0; n < 50; n += 1) idle.push(await read());
    console.log(`database: ${EMBEDDED ? `embedded (${DATA_DIR})` : TARGET}`);
    console.log(`record reads idle: p50 ${percentile(idle, 0.5).toFixed(1)}, max ${Math.max(...idle).toFixed(1)} ms`);
    for (const request of REQUESTS) {
      const during: number[] = [];
      const times: string[] = [];
      const compiledBefore = await metric('compiled_reads_total');
      let outcome = '';
      for (let run = 0; run < RUNS; run += 1) {
        let running = true;
        const reads = (async () => {
          while (running) during.push(await read());
        })();
        const answer = await send(request);
        running = false;
        await reads;
        times.push(answer.ms.toFixed(0));
        outcome = answer.outcome;
      }
      const compiled = (await metric('compiled_reads_total')) - compiledBefore - during.length;
      console.log(`${request.name}: ${times.join(', ')} ms; ${outcome}; compiled ${compiled} of ${RUNS}`);
      console.log(`  record reads meanwhile: p50 ${percentile(during, 0.5).toFixed(1)}, max ${Math.max(...during).toFixed(1)} ms (${during.length} reads)`);
    }
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
