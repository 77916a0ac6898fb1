/**
 * Parquet exports read back as a warehouse would: with hyparquet (every row equal to the list's record
 * once its typed values are written as JSON again) and with DuckDB (the declared column types:
 * BIGINT, DOUBLE, VARCHAR, BOOLEAN, TIMESTAMP WITH TIME ZONE, DATE, STRUCT and lists, no JSON text).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { withDuckDB } from '../../helpers/duckdb.ts';
import { createExport, fileBytes, listAll, waitForExport, type ExportBody } from './support.ts';

let app: TestApp;
let auth: TestCredentials;
const dir = mkdtempSync(join(tmpdir(), 'vda-parquet-'));

beforeAll(async () => {
  app = await startTestApp({ env: { BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50' } });
  await seedDatabase(app.db, { entities: 120, seed: 5 });
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await app?.close();
});

type Column = ExportBody['columns'][number];

// The files' pages are gzip (hyparquet reads Snappy alone): node's zlib, as any reader's gzip.
const compressors = { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) };

/** A value read from Parquet, written back as the list's JSON writes it (by the column's declared type). */
function asJson(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type.startsWith('array<')) return (value as unknown[]).map((item) => asJson(type.slice(6, -1), item));
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return type === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as object).map(([key, item]) => [key, asJson(guess(item), item)]));
  return value;
}
// Nested fields carry no declared type here: a Date in a struct is a date-time unless it is midnight UTC of a date field.
const guess = (value: unknown): string => (Array.isArray(value) ? 'array<x>' : 'x');

async function parquetOf(resource: string, since?: string): Promise<{ done: ExportBody; file: ArrayBuffer; path: string }> {
  const done = await waitForExport(auth, (await createExport(auth, { resource, format: 'parquet', ...(since ? { since } : {}) })).id);
  expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
  const [bytes] = await fileBytes(auth, done);
  const path = join(dir, `${resource}${since ? '-delta' : ''}.parquet`);
  writeFileSync(path, bytes!);
  return { done, file: bytes!.buffer.slice(bytes!.byteOffset, bytes!.byteOffset + bytes!.byteLength) as ArrayBuffer, path };
}

describe('Parquet', () => {
  it("holds the list's rows in typed columns (hyparquet)", async () => {
    const { done, file } = await parquetOf('transactions');
    const list = await listAll(auth, '/api/transactions');
    const rows = (await parquetReadObjects({ file, compressors })) as Record<string, unknown>[];
    expect(rows.length).toBe(list.length);
    const types = new Map(done.columns.map((column: Column) => [column.name, column.type]));
    const back = rows.map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, asJson(types.get(name)!, value)])));
    // Nested dates come back as Date: compare them by instant.
    expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(list)));
    const schema = parquetMetadata(file).schema;
    const byName = new Map(schema.map((element) => [element.name, element]));
    expect(byName.get('id')?.type).toBe('INT64');
    expect(byName.get('amount_usd')?.type).toBe('INT64');
    expect(byName.get('date')).toMatchObject({ type: 'INT32', converted_type: 'DATE' });
    expect(byName.get('round_type')).toMatchObject({ type: 'BYTE_ARRAY', converted_type: 'UTF8' });
  });

  it('opens in DuckDB with the declared types', async () => {
    const { path } = await parquetOf('entities');
    await withDuckDB(async (connection) => {
      const described = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`)).getRowObjects();
      const types = Object.fromEntries(described.map((row) => [String(row.column_name), String(row.column_type)]));
      expect(types).toMatchObject({
        id: 'BIGINT',
        name: 'VARCHAR',
        is_company: 'BOOLEAN',
        launch_year: 'BIGINT',
        lat: 'DOUBLE',
        created_at: 'TIMESTAMP WITH TIME ZONE',
      });
      expect(types.tags).toMatch(/^STRUCT\(.*\)\[\]$/);
      expect(types.external_ids).toMatch(/^STRUCT\("source" VARCHAR, id VARCHAR\)\[\]$/);
      const list = await listAll(auth, '/api/entities');
      const counted = (await connection.runAndReadAll(`SELECT count(*)::INT AS n, sum(len(tags))::INT AS tags FROM read_parquet('${path}')`)).getRowObjects()[0]!;
      expect(counted.n).toBe(list.length);
      expect(counted.tags).toBe(list.reduce((sum, row) => sum + (row.tags as unknown[]).length, 0));
      const first = (await connection.runAndReadAll(`SELECT name, epoch_ms(created_at) AS created FROM read_parquet('${path}') ORDER BY id LIMIT 1`)).getRowObjects()[0]!;
      expect(first.name).toBe(list[0]!.name);
      expect(Number(first.created)).toBe(Date.parse(list[0]!.created_at as string));
    });
  });

  // docs/exports.md's recipe, as a warehouse runs it: load the full file, then apply an incremental one by its `_deleted` column.
  it('an incremental export applied in DuckDB by its _deleted column leaves the list', async () => {
    const full = await parquetOf('entities');
    const [renamed, deleted] = (await listAll(auth, '/api/entities')).slice(2, 4).map((row) => row.id as number) as [number, number];
    await app.db.sql.query("UPDATE entities SET name = 'Renamed in Parquet', updated_at = now() WHERE id = $1", [renamed]);
    await app.db.sql.query('UPDATE entities SET deleted_at = now() WHERE id = $1', [deleted]);
    const delta = await parquetOf('entities', full.done.cursor!);
    expect(delta.done.rows_written).toBe(2);
    await withDuckDB(async (connection) => {
      const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();
      expect((await rows(`DESCRIBE SELECT _deleted FROM read_parquet('${delta.path}')`))[0]).toMatchObject({ column_type: 'BOOLEAN' });
      expect(await rows(`SELECT id::INT AS id, _deleted, name FROM read_parquet('${delta.path}') ORDER BY id`)).toEqual(
        [
          { id: renamed, _deleted: false, name: 'Renamed in Parquet' },
          { id: deleted, _deleted: true, name: null },
        ].sort((a, b) => a.id - b.id),
      );
      await connection.run(`CREATE TABLE entities AS SELECT * FROM read_parquet('${full.path}')`);
      await connection.run(`DELETE FROM entities WHERE id IN (SELECT id FROM read_parquet('${delta.path}'))`);
      await connection.run(`INSERT INTO entities SELECT * EXCLUDE (_deleted) FROM read_parquet('${delta.path}') WHERE NOT _deleted`);
      const list = await listAll(auth, '/api/entities');
      const loaded = await rows('SELECT id::INT AS id, name, launch_year::INT AS launch_year, len(tags)::INT AS tags FROM entities ORDER BY id');
      expect(loaded).toEqual(list.map((row) => ({ id: row.id, name: row.name, launch_year: row.launch_year, tags: (row.tags as unknown[]).length })));
    });
  });
});
