/**
 * POST /api/match with the batch that costs most per record (bench/README.md, "Match: long names
 * and the reads beside them"): 1,000 records whose names are 8 to 15 of the data's commonest words
 * ("technologies systems media group solutions ..."), against our server on the demo data, over HTTP.
 * Prints each batch's time, the floor the same run measures for it (normalising the 1,000 names
 * with search_text() in one statement, which any match of these names pays), and how long a record
 * read (GET /api/entities/{id}) waits when idle and while batches run back to back.
 *
 *   npx tsx bench/match-load.ts                                        # PostgreSQL, database venture_bench_match_demo
 *   BENCH_DATABASE_URL=embedded npx tsx bench/match-load.ts            # the embedded database, in BENCH_DATA_DIR
 *
 * The demo data is loaded first if the database is empty. BENCH_BATCHES (5) batches; reads for
 * BENCH_SECONDS (5) idle.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { loadDemoDataIfEmpty } from '../src/data/demo.ts';
import { prng } from '../test/helpers/match-cases.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';

const TARGET = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench_match_demo';
const EMBEDDED = TARGET === 'embedded';
const DATA_DIR = process.env.BENCH_DATA_DIR ?? '/tmp/vda-bench-match-demo';
const BATCHES = Number(process.env.BENCH_BATCHES ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

const quiet = { info: () => undefined, warn: console.warn };

async function openTarget(): Promise<Database> {
  // Where the server keeps its embedded database (src/db/client.ts).
  if (EMBEDDED) return openDatabase({ dataDir: join(DATA_DIR, 'pglite'), poolSize: 1 });
  await ensureDatabase(TARGET);
  return openDatabase({ url: TARGET, poolSize: 2 });
}

/** The batch, the ids reads ask for, and the floor: the names normalised by one statement. */
async function prepare(): Promise<{ records: { name: string }[]; ids: number[]; floorMs: number[] }> {
  const db = await openTarget();
  try {
    await migrate(db.sql);
    await loadDemoDataIfEmpty(db, quiet as never);
    const words = (await db.sql.query<{ word: string }>('SELECT word FROM entity_name_word_counts ORDER BY entities DESC, word LIMIT 60')).map((row) => row.word);
    const random = prng(1000);
    const records = Array.from({ length: 1000 }, () => ({
      name: Array.from({ length: 8 + Math.floor(random() * 8) }, () => words[Math.floor(random() * words.length)]!).join(' '),
    }));
    const ids = (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY md5(id::text) LIMIT 500')).map((row) => Number(row.id));
    const floorMs: number[] = [];
    for (let run = 0; run < 3; run += 1) {
      const started = performance.now();
      await db.sql.query('SELECT count(search_text(left(n, 200))) FROM unnest($1::text[]) n', [records.map((record) => record.name)]);
      floorMs.push(performance.now() - started);
    }
    return { records, ids, floorMs };
  } finally {
    await db.close();
  }
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;
const summary = (values: number[]) => `p50 ${percentile(values, 0.5).toFixed(1)}, p95 ${percentile(values, 0.95).toFixed(1)}, max ${Math.max(...values).toFixed(1)} ms (${values.length} reads)`;

async function main(): Promise<void> {
  const { records, ids, floorMs } = await prepare();
  const server: OurServer = {
    port: 4833,
    databaseUrl: EMBEDDED ? '' : TARGET,
    clientId: 'bench-match',
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
    const batch = async () => {
      const started = performance.now();
      const response = await fetch(`${base}/api/match`, { method: 'POST', headers, body: JSON.stringify({ records }) });
      const answer = (await response.json()) as { data: { status: string }[] };
      if (response.status !== 200) throw new Error(`the batch answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
      const matched = answer.data.filter((result) => result.status === 'matched').length;
      return { ms: performance.now() - started, matched };
    };
    await batch(); // warm-up: plans, caches
    const idle: number[] = [];
    for (const until = performance.now() + SECONDS * 1000; performance.now() < until; ) idle.push(await read());
    const during: number[] = [];
    let running = true;
    const reads = (async () => {
      while (running) during.push(await read());
    })();
    const times: string[] = [];
    for (let n = 0; n < BATCHES; n += 1) {
      const { ms, matched } = await batch();
      times.push(`${ms.toFixed(0)} ms (${matched} matched)`);
    }
    running = false;
    await reads;
    console.log(`database: ${EMBEDDED ? `embedded (${DATA_DIR})` : TARGET}`);
    console.log(`1,000 long common-word names, per batch: ${times.join(', ')}`);
    console.log(`floor, the names normalised by one statement: ${floorMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    console.log(`record reads idle:         ${summary(idle)}`);
    console.log(`record reads during batches: ${summary(during)}`);
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
