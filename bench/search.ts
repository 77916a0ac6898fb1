/**
 * GET /api/search at scale (docs/finding-companies.md, "Search"): seeds (once) a PostgreSQL database
 * with BENCH_ENTITIES entities, starts our server, and times sequential searches of five kinds, drawn
 * from the seeded names: a whole name, the beginning of one, a name with a typo (two letters swapped),
 * a founder's name, and a name that is not there. Prints p50 and p95 per kind, over HTTP (what a client
 * waits for) and of the statement alone (what the database spends).
 *
 * Environment: BENCH_DATABASE_URL (default the local server's `venture_bench_search`), BENCH_ENTITIES
 * (1000000), BENCH_SAMPLES (queries per kind, 40).
 */
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { seedOnce } from './seeded.ts';
import { runSearch, SEARCH_KINDS } from '../src/search/statement.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench_search';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);

async function prepare(db: Database): Promise<void> {
  await seedOnce(db, ENTITIES);
  // What autovacuum does to a table after a bulk load: the visibility map lets the name index answer
  // a prefix without reading the table.
  for (const table of ['entities', 'founders']) await db.sql.exec(`VACUUM ANALYZE ${table}`);
}

/** Two inner letters swapped: `Brightlabs` → `Brigthlabs`. */
function typo(name: string, at: number): string {
  const index = 1 + (at % Math.max(1, name.length - 3));
  return name.slice(0, index) + name[index + 1] + name[index] + name.slice(index + 2);
}

/** SAMPLES queries of each kind, the same ones for the same database. */
async function queries(db: Database): Promise<Record<string, string[]>> {
  const names = await db.sql.query<{ name: string }>(
    `SELECT name FROM entities WHERE deleted_at IS NULL AND length(name) >= 6 ORDER BY hashtext(id::text) LIMIT $1`,
    [SAMPLES * 3],
  );
  const founders = await db.sql.query<{ name: string }>('SELECT name FROM founders ORDER BY hashtext(id::text) LIMIT $1', [SAMPLES]);
  const pick = (offset: number) => names.slice(offset * SAMPLES, (offset + 1) * SAMPLES).map((row) => row.name);
  return {
    'whole name': pick(0),
    'beginning (5 letters)': pick(1).map((name) => name.slice(0, 5)),
    'typo (2 letters swapped)': pick(2).map(typo),
    'founder name': founders.map((row) => row.name),
    'not there': Array.from({ length: SAMPLES }, (_, index) => `zqx${index}vvk`),
  };
}

function percentiles(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
  return `${at(0.5).toFixed(1).padStart(8)}${at(0.95).toFixed(1).padStart(8)}`;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL, poolSize: 2 });
  const server: OurServer = { port: 4821, databaseUrl: DATABASE_URL, clientId: 'bench-admin', clientSecret: `vds_${randomBytes(32).toString('base64url')}` };
  try {
    await prepare(db);
    const byKind = await queries(db);
    const [count] = await db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM entities WHERE deleted_at IS NULL');
    const ours = await startOurServer(server);
    try {
      const headers = await obtainHeaders(server);
      const url = (q: string) => `http://127.0.0.1:${server.port}/api/search?q=${encodeURIComponent(q)}`;
      console.log(`\nGET /api/search at ${count!.n} live entities: ${SAMPLES} sequential queries per kind, ms\n`);
      console.log(`${'query'.padEnd(28)}${'HTTP p50'.padStart(8)}${'p95'.padStart(8)}${'  SQL p50'.padStart(10)}${'p95'.padStart(8)}  hits`);
      const all: number[] = [];
      for (const [kind, list] of Object.entries(byKind)) {
        const http: number[] = [];
        const sql: number[] = [];
        let hits = 0;
        for (const q of list) {
          // One warm-up per query text: the first plan of a statement text is not what a server runs.
          await fetch(url(q), { headers }).then((response) => response.text());
          http.push(await time(() => fetch(url(q), { headers }).then(async (response) => {
            if (!response.ok) throw new Error(`${q}: ${response.status} ${await response.text()}`);
            hits += ((await response.json()) as { data: unknown[] }).data.length;
          })));
          sql.push(await time(() => runSearch(db.sql, { q, kinds: SEARCH_KINDS, limit: 10, domain: null })));
        }
        all.push(...http);
        console.log(`${kind.padEnd(28)}${percentiles(http)}  ${percentiles(sql)}  ${(hits / list.length).toFixed(1)}`);
      }
      console.log(`${'all'.padEnd(28)}${percentiles(all)}`);
    } finally {
      ours.kill('SIGTERM');
    }
  } finally {
    await db.close();
  }
}

await main();
