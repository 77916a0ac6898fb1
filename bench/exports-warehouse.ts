/**
 * `npm run bench:exports-warehouse` (bench/README.md, "Exports"): a warehouse's whole job, from
 * outside over HTTP, against our server (its own process) on a PostgreSQL database seeded with
 * BENCH_ENTITIES entities (100,000), each step timed:
 *
 * 1. a full Parquet export, its files checked (size, sha256) and loaded into DuckDB with their types;
 * 2. a full NDJSON export while an importer writes (renames and soft deletes, committed one by one,
 *    straight into the database as an import does), then the changes feed followed from its cursor;
 * 3. more writes, then an incremental export from where the feed was left, upserts and tombstones applied;
 * 4. a full export whose server is killed (SIGKILL) half way and started again: the job is taken over;
 * 5. a fresh full export: the copy kept in sync by 1-3, and the export of 4, each equal to it, row for row.
 *
 * Environment: BENCH_EXPORTS_DATABASE_URL (default `venture_exports_bench`, created on first use),
 * BENCH_ENTITIES (100000), BENCH_WRITES (writes made during step 2, 2000).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDatabase } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';
import { seedOnce } from './seeded.ts';

const DATABASE_URL = process.env.BENCH_EXPORTS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_exports_bench';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 100_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 2_000);

type Row = Record<string, unknown>;
interface Export {
  id: number;
  status: string;
  cursor: string;
  progress: number;
  rows_written: number;
  columns: { name: string; type: string }[];
  files: { url: string; bytes: number; sha256: string; rows: number }[];
  error: unknown;
}

const server: OurServer = {
  port: 4843,
  databaseUrl: DATABASE_URL,
  clientId: 'bench-warehouse',
  clientSecret: `vds_${randomBytes(32).toString('base64url')}`,
  // A killed runner's job is taken over once its lease runs out: 5 s here, a minute by default.
  env: { EXPORT_POLL_MS: '200', EXPORT_LEASE_MS: '5000' },
};
const base = `http://127.0.0.1:${server.port}`;
let headers: Record<string, string> = {};

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, { ...init, headers });
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: T }).data;
}

async function exportOf(body: Row, onProgress?: (current: Export) => Promise<void>): Promise<Export> {
  const created = await api<Export>('/api/exports', { method: 'POST', body: JSON.stringify(body) });
  for (;;) {
    const current = await api<Export>(`/api/exports/${created.id}`).catch(() => undefined);
    if (current && !['queued', 'running'].includes(current.status)) {
      if (current.status !== 'succeeded') throw new Error(`export ${current.id} ended ${current.status}: ${JSON.stringify(current.error)}`);
      return current;
    }
    if (current) await onProgress?.(current);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The files of an export, each checked against its size and sha256. */
async function download(done: Export): Promise<Buffer[]> {
  const files: Buffer[] = [];
  for (const file of done.files) {
    const bytes = Buffer.from(await (await fetch(`${base}${file.url}`, { headers })).arrayBuffer());
    if (bytes.length !== file.bytes || createHash('sha256').update(bytes).digest('hex') !== file.sha256) throw new Error(`${file.url} is not the file its export describes`);
    files.push(bytes);
  }
  return files;
}

const ndjson = (files: Buffer[]): Row[] => files.flatMap((file) => gunzipSync(file).toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Row));
const byId = (rows: Row[]) => new Map(rows.map((row) => [row.id as number, row]));

/** Applies the feed after `since` to the copy (a delete removes, anything else re-reads the record); the cursor where it stopped. */
async function followChanges(copy: Map<number, Row>, since: string): Promise<{ cursor: string; changes: number }> {
  let cursor = since;
  let changes = 0;
  for (;;) {
    const response = await fetch(`${base}/api/changes?types=entity&limit=1000&since=${cursor}`, { headers });
    const page = (await response.json()) as { data: { type: string; object_id: number }[]; page: { next_cursor: string } };
    for (const change of page.data) {
      const record = await fetch(`${base}/api/entities/${change.object_id}`, { headers });
      if (change.type === 'entity.deleted' || record.status === 404) copy.delete(change.object_id);
      else copy.set(change.object_id, ((await record.json()) as { data: Row }).data);
    }
    changes += page.data.length;
    cursor = page.page.next_cursor;
    if (page.data.length < 1000) return { cursor, changes };
  }
}

const timed = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  const result = await work();
  console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
};

function sameRows(label: string, copy: Map<number, Row>, fresh: Map<number, Row>): void {
  const differing = [...fresh.keys()].filter((id) => !isDeepStrictEqual(copy.get(id), fresh.get(id)));
  const extra = [...copy.keys()].filter((id) => !fresh.has(id));
  if (differing.length || extra.length) throw new Error(`${label}: ${differing.length} rows differ or are missing (${differing.slice(0, 5).join(', ')}), ${extra.length} too many`);
  console.log(`${label}: equal to the fresh export, ${fresh.size} rows`);
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL });
  await seedOnce(db, ENTITIES);
  const live = (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id')).map((row) => row.id);
  let step = 0;
  /** The importer: a rename or (one write in five) a soft delete, committed one by one, until `count` writes or `running()` is false. */
  const importer = async (count: number, running: () => boolean = () => true): Promise<number> => {
    let writes = 0;
    for (; writes < count && running(); writes += 1, step += 1) {
      const id = live[(step * 7919) % live.length]!;
      if (step % 5 === 4) await db.sql.query('UPDATE entities SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL', [id]);
      else await db.sql.query("UPDATE entities SET name = name || '.', updated_at = now() WHERE id = $1", [id]);
    }
    return writes;
  };

  let child = await startOurServer(server);
  try {
    headers = await obtainHeaders(server);
    const work = mkdtempSync(join(tmpdir(), 'vda-warehouse-'));

    const parquet = await timed('1. full Parquet export', () => exportOf({ resource: 'entities', format: 'parquet' }));
    const paths = (await download(parquet)).map((bytes, index) => {
      const path = join(work, `entities-${index + 1}.parquet`);
      writeFileSync(path, bytes);
      return path;
    });
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    await timed('   loaded into DuckDB', () => duck.run(`CREATE TABLE entities AS SELECT * FROM read_parquet([${paths.map((path) => `'${path}'`).join(', ')}])`));
    const loaded = (await duck.runAndReadAll('SELECT count(*)::INT AS n, max(created_at) AS newest, sum(len(tags))::INT AS tags FROM entities')).getRowObjects()[0]!;
    const types = (await duck.runAndReadAll('DESCRIBE entities')).getRowObjects().map((row) => `${String(row.column_name)} ${String(row.column_type)}`);
    console.log(`   ${loaded.n} rows (${parquet.rows_written} written), ${loaded.tags} tags; types: ${types.filter((type) => /^(id|launch_year|lat|created_at|tags) /.test(type)).join('; ')}`);
    if (loaded.n !== parquet.rows_written) throw new Error('DuckDB did not load every row');

    let importing = true;
    const writing = importer(WRITES, () => importing);
    const full = await timed('2. full NDJSON export while the importer writes', () => exportOf({ resource: 'entities', format: 'ndjson' }));
    importing = false;
    console.log(`   ${await writing} writes during it`);
    const copy = byId(ndjson(await download(full)));
    const followed = await timed('   its changes applied', () => followChanges(copy, full.cursor));
    console.log(`   ${followed.changes} changes`);

    await importer(200);
    const incremental = await timed('3. incremental NDJSON export after 200 more writes', () => exportOf({ resource: 'entities', format: 'ndjson', since: followed.cursor }));
    const changed = ndjson(await download(incremental));
    for (const row of changed) {
      if (row._deleted === true) copy.delete(row.id as number);
      else copy.set(row.id as number, row);
    }
    console.log(`   ${changed.length} rows, ${changed.filter((row) => row._deleted === true).length} tombstones`);

    let killed = false;
    const restarted = await timed('4. full export, its server killed half way and started again', () =>
      exportOf({ resource: 'entities', format: 'ndjson' }, async (current) => {
        if (killed || current.progress < 0.5) return;
        killed = true;
        child.kill('SIGKILL');
        console.log(`   killed at ${(current.progress * 100).toFixed(0)}%`);
        child = await startOurServer(server);
        headers = await obtainHeaders(server);
      }),
    );
    if (!killed) throw new Error('the export ended before its server could be killed');

    const fresh = byId(ndjson(await download(await timed('5. a fresh full export', () => exportOf({ resource: 'entities', format: 'ndjson' })))));
    sameRows('   the copy (1-3)', copy, fresh);
    sameRows('   the export taken over after the kill', byId(ndjson(await download(restarted))), fresh);
    duck.closeSync();
  } finally {
    child.kill('SIGTERM');
    await db.close();
  }
}

await main();
