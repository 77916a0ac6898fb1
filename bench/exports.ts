/**
 * `npm run bench:exports` (bench/README.md, "Exports"): our server (its own process, as `npm start`
 * runs it) on a PostgreSQL database seeded with BENCH_ENTITIES entities. In one run it measures
 * paging GET /api/entities with cursors at its largest page (500), then an NDJSON.gz export and a
 * Parquet export of the same rows: their time, their files' sizes, the server's resident memory
 * growth while each ran (VmRSS sampled every 100 ms), and by-id reads' p95 while each ran beside the
 * same reads while the server was idle.
 *
 * Environment: BENCH_EXPORTS_DATABASE_URL (default the local server's `venture_exports_bench`,
 * created on first use), BENCH_ENTITIES (1000000).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openDatabase } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';
import { seedOnce } from './seeded.ts';

const DATABASE_URL = process.env.BENCH_EXPORTS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_exports_bench';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 1_000_000);

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const p95 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? Number.NaN;

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL });
  await seedOnce(db, ENTITIES);
  const ids = (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY random() LIMIT 2000')).map((row) => row.id);
  await db.close();

  const server: OurServer = { port: 4841, databaseUrl: DATABASE_URL, clientId: 'bench-exports', clientSecret: `vds_${randomBytes(32).toString('base64url')}`, env: { EXPORT_POLL_MS: '200' } };
  const child = await startOurServer(server);
  try {
    const headers = await obtainHeaders(server);
    const base = `http://127.0.0.1:${server.port}`;
    const get = (path: string) => fetch(`${base}${path}`, { headers });

    /**
     * By-id reads as a client makes them beside an export: one at a time, 20 ms apart (a load that
     * measures waiting, not one that competes with the export for the two cores), until `until()` or
     * `count` of them: their durations in ms.
     */
    const readById = async (until: () => boolean, count = Number.POSITIVE_INFINITY): Promise<number[]> => {
      const durations: number[] = [];
      while (!until() && durations.length < count) {
        const id = ids[durations.length % ids.length]!;
        const started = performance.now();
        await (await get(`/api/entities/${id}`)).arrayBuffer();
        durations.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return durations;
    };

    const idle = await readById(() => false, 500);
    console.log(`by id, idle: p95 ${p95(idle).toFixed(1)} ms over ${idle.length} reads`);

    let started = performance.now();
    let rows = 0;
    let cursor: string | null = null;
    do {
      const page = (await (await get(`/api/entities?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as { data: unknown[]; page: { next_cursor: string | null } };
      rows += page.data.length;
      cursor = page.page.next_cursor;
    } while (cursor);
    const paging = (performance.now() - started) / 1000;
    console.log(`paging the list with cursors, 500 a page: ${rows} rows in ${paging.toFixed(1)} s`);

    const results: Record<string, { seconds: number; bytes: number; rows: number; rssGrowthMb: number; byIdP95: number }> = {};
    for (const format of ['ndjson', 'parquet'] as const) {
      const before = rssMb(child.pid!);
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(child.pid!));
      }, 100);
      started = performance.now();
      const created = (await (await fetch(`${base}/api/exports`, { method: 'POST', headers, body: JSON.stringify({ resource: 'entities', format }) })).json()) as { data: { id: number } };
      let done = false;
      const reads = readById(() => done);
      let exported: { status: string; rows_written: number; files: { bytes: number }[] };
      for (;;) {
        exported = ((await (await get(`/api/exports/${created.data.id}`)).json()) as { data: typeof exported }).data;
        if (!['queued', 'running'].includes(exported.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const seconds = (performance.now() - started) / 1000;
      done = true;
      const during = await reads;
      clearInterval(sampler);
      if (exported.status !== 'succeeded') throw new Error(`the ${format} export ended ${exported.status}`);
      results[format] = {
        seconds,
        bytes: exported.files.reduce((sum, file) => sum + file.bytes, 0),
        rows: exported.rows_written,
        rssGrowthMb: peak - before,
        byIdP95: p95(during),
      };
      console.log(`${format}: ${JSON.stringify(results[format])}`);
    }
    const ndjson = results.ndjson!;
    const parquet = results.parquet!;
    console.log(`\n| measure | value |\n|---|---|`);
    console.log(`| entities | ${rows} |`);
    console.log(`| paging GET /api/entities?limit=500 with cursors | ${paging.toFixed(1)} s |`);
    console.log(`| NDJSON.gz export | ${ndjson.seconds.toFixed(1)} s (${(paging / ndjson.seconds).toFixed(2)}x faster than paging), ${(ndjson.bytes / 1e6).toFixed(1)} MB, RSS +${ndjson.rssGrowthMb.toFixed(0)} MB |`);
    console.log(`| Parquet export | ${parquet.seconds.toFixed(1)} s (${(paging / parquet.seconds).toFixed(2)}x faster than paging), ${(parquet.bytes / 1e6).toFixed(1)} MB (${(parquet.bytes / ndjson.bytes).toFixed(2)}x the NDJSON.gz), RSS +${parquet.rssGrowthMb.toFixed(0)} MB |`);
    console.log(`| by-id p95: idle / during NDJSON / during Parquet | ${p95(idle).toFixed(1)} / ${ndjson.byIdP95.toFixed(1)} / ${parquet.byIdP95.toFixed(1)} ms |`);
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
