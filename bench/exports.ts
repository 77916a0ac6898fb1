/**
 * `npm run bench:exports` (bench/README.md, "Exports"): our server (its own process, as `npm start`
 * runs it) on a PostgreSQL database seeded with BENCH_ENTITIES entities. In one run it measures
 * paging GET /api/entities with cursors at its largest page (500), then an NDJSON.gz export and a
 * Parquet export of the same rows, each twice: alone, as paging ran (their time, their files' sizes,
 * the server's resident memory growth, VmRSS sampled every 100 ms from before the first export), and
 * again with by-id reads beside it (its time then, and the reads' p95 beside the same reads while the
 * server was idle). An export yields to traffic (docs/exports.md, "Jobs"), so the two times differ.
 *
 * Environment: BENCH_EXPORTS_DATABASE_URL (default the local server's `venture_exports_bench`,
 * created on first use), BENCH_ENTITIES (1000000), BENCH_EXPORTS_FORMATS (`ndjson,parquet`; one of
 * them alone measures its memory from a server that ran nothing before it), BENCH_EXPORTS_PAGING
 * (`0`: no paging, and no table); BENCH_EXPORTS_DATABASE_URL=embedded runs the
 * server on its embedded database with the demo data instead (in BENCH_DATA_DIR), where what counts
 * is the longest a by-id read waited while an export ran. After the Parquet export, DuckDB writes the
 * same rows as Parquet (bench/parquet-peer.ts, BENCH_PARQUET_PEER): the peer for its size.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { loadDemoDataIfEmpty } from '../src/data/demo.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';
import { peerParquet, type PeerFile } from './parquet-peer.ts';
import { seedOnce } from './seeded.ts';

const DATABASE_URL = process.env.BENCH_EXPORTS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_exports_bench';
const EMBEDDED = DATABASE_URL === 'embedded';
const DATA_DIR = process.env.BENCH_DATA_DIR ?? '/tmp/vda-bench-exports-demo';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 1_000_000);
const FORMATS = (process.env.BENCH_EXPORTS_FORMATS ?? 'ndjson,parquet').split(',') as ('ndjson' | 'parquet')[];
const PAGING = process.env.BENCH_EXPORTS_PAGING !== '0';

/** The database the server will use, ready: seeded with ENTITIES entities, or (embedded) holding the demo data. */
async function prepare(): Promise<Database> {
  if (EMBEDDED) {
    // Where the server keeps its embedded database (src/db/client.ts).
    const db = await openDatabase({ dataDir: join(DATA_DIR, 'pglite'), poolSize: 1 });
    await migrate(db.sql);
    await loadDemoDataIfEmpty(db, { info: () => undefined, warn: console.warn } as never);
    return db;
  }
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL });
  await seedOnce(db, ENTITIES);
  return db;
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const p95 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? Number.NaN;
const summary = (values: number[]): string => `p95 ${p95(values).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms over ${values.length} reads`;

async function main(): Promise<void> {
  const db = await prepare();
  const ids = (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY random() LIMIT 2000')).map((row) => row.id);
  await db.close();

  const server: OurServer = {
    port: 4841,
    databaseUrl: EMBEDDED ? '' : DATABASE_URL,
    clientId: 'bench-exports',
    clientSecret: `vds_${randomBytes(32).toString('base64url')}`,
    env: { EXPORT_POLL_MS: '200', ...(EMBEDDED ? { DATA_DIR } : {}) },
  };
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
    console.log(`database: ${EMBEDDED ? `embedded, the demo data (${DATA_DIR})` : DATABASE_URL}`);
    console.log(`by id, idle: ${summary(idle)}`);

    let started = performance.now();
    let rows = 0;
    let cursor: string | null = null;
    // Seconds to page the list to its end; undefined when BENCH_EXPORTS_PAGING=0.
    let paging: number | undefined;
    if (PAGING) {
      do {
        const page = (await (await get(`/api/entities?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as { data: unknown[]; page: { next_cursor: string | null } };
        rows += page.data.length;
        cursor = page.page.next_cursor;
      } while (cursor);
      paging = (performance.now() - started) / 1000;
      console.log(`paging the list with cursors, 500 a page: ${rows} rows in ${paging.toFixed(1)} s`);
    }

    /** Our Parquet files, downloaded, written again by DuckDB with each of its settings. */
    const parquetPeer = async (files: { url: string }[]): Promise<PeerFile[]> => {
      const directory = mkdtempSync(join(tmpdir(), 'vda-bench-exports-'));
      try {
        const paths: string[] = [];
        for (const [index, file] of files.entries()) {
          const path = join(directory, `${index + 1}.parquet`);
          writeFileSync(path, Buffer.from(await (await fetch(new URL(file.url, base), { headers })).arrayBuffer()));
          paths.push(path);
        }
        const written = await peerParquet(paths);
        for (const file of written) console.log(`DuckDB's Parquet writer, ${file.setting}: ${JSON.stringify(file)}`);
        return written;
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    };
    let peer: PeerFile[] = [];

    /**
     * One export of `format` from its POST to `succeeded`, as a client polling every 250 ms sees it,
     * with the server's peak resident memory; with `reads`, by-id reads beside it the whole time.
     */
    const exportOnce = async (format: 'ndjson' | 'parquet', reads: boolean) => {
      let peak = rssMb(child.pid!);
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(child.pid!));
      }, 100);
      const started = performance.now();
      const created = (await (await fetch(`${base}/api/exports`, { method: 'POST', headers, body: JSON.stringify({ resource: 'entities', format }) })).json()) as { data: { id: number } };
      let done = false;
      const beside = reads ? readById(() => done) : Promise.resolve([]);
      let exported: { status: string; rows_written: number; files: { bytes: number; url: string }[] };
      for (;;) {
        exported = ((await (await get(`/api/exports/${created.data.id}`)).json()) as { data: typeof exported }).data;
        if (!['queued', 'running'].includes(exported.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const seconds = (performance.now() - started) / 1000;
      done = true;
      const during = await beside;
      clearInterval(sampler);
      if (exported.status !== 'succeeded') throw new Error(`the ${format} export ended ${exported.status}`);
      return { seconds, peak, during, exported };
    };

    const results: Record<string, { seconds: number; besideSeconds: number; bytes: number; rows: number; rssGrowthMb: number; byIdP95: number; byIdMax: number }> = {};
    // Growth is counted from before the first export: a heap the NDJSON export grew and kept counts against the Parquet one too.
    const before = rssMb(child.pid!);
    let peak = before;
    for (const format of FORMATS) {
      // Alone, as paging ran: the export's speed. Then again with by-id reads beside it: what they wait.
      const alone = await exportOnce(format, false);
      const beside = await exportOnce(format, true);
      peak = Math.max(peak, alone.peak, beside.peak);
      results[format] = {
        seconds: alone.seconds,
        besideSeconds: beside.seconds,
        bytes: alone.exported.files.reduce((sum, file) => sum + file.bytes, 0),
        rows: alone.exported.rows_written,
        rssGrowthMb: peak - before,
        byIdP95: p95(beside.during),
        byIdMax: Math.max(...beside.during),
      };
      console.log(`${format}: ${JSON.stringify(results[format])}`);
      if (format === 'parquet') peer = await parquetPeer(alone.exported.files);
    }
    const ndjson = results.ndjson;
    const parquet = results.parquet;
    if (paging === undefined || !ndjson || !parquet) return;
    console.log(`\n| measure | value |\n|---|---|`);
    console.log(`| entities | ${rows} |`);
    console.log(`| paging GET /api/entities?limit=500 with cursors | ${paging.toFixed(1)} s |`);
    console.log(`| NDJSON.gz export | ${ndjson.seconds.toFixed(1)} s (${(paging / ndjson.seconds).toFixed(2)}x faster than paging), ${(ndjson.bytes / 1e6).toFixed(1)} MB, RSS +${ndjson.rssGrowthMb.toFixed(0)} MB |`);
    console.log(`| Parquet export | ${parquet.seconds.toFixed(1)} s (${(paging / parquet.seconds).toFixed(2)}x faster than paging), ${(parquet.bytes / 1e6).toFixed(1)} MB (${(parquet.bytes / ndjson.bytes).toFixed(2)}x the NDJSON.gz), RSS +${parquet.rssGrowthMb.toFixed(0)} MB |`);
    for (const file of peer) console.log(`| DuckDB's Parquet writer, the same rows, ${file.setting} | ${(file.bytes / 1e6).toFixed(1)} MB (${(file.bytes / ndjson.bytes).toFixed(2)}x the NDJSON.gz), written in ${file.seconds.toFixed(1)} s |`);
    console.log(`| NDJSON.gz / Parquet export beside the by-id reads | ${ndjson.besideSeconds.toFixed(1)} s (${(paging / ndjson.besideSeconds).toFixed(2)}x) / ${parquet.besideSeconds.toFixed(1)} s (${(paging / parquet.besideSeconds).toFixed(2)}x) |`);
    console.log(`| by-id p95: idle / during NDJSON / during Parquet | ${p95(idle).toFixed(1)} / ${ndjson.byIdP95.toFixed(1)} / ${parquet.byIdP95.toFixed(1)} ms |`);
    console.log(`| by-id longest wait: idle / during NDJSON / during Parquet | ${Math.max(...idle).toFixed(1)} / ${ndjson.byIdMax.toFixed(1)} / ${parquet.byIdMax.toFixed(1)} ms |`);
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
