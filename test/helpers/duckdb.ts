// DuckDB as a warehouse reads the export tests' Parquet files: an in-memory database, closed after use.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** A connection to a fresh in-memory DuckDB for `use`, closed after it. */
export async function withDuckDB<T>(use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return await use(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** `file` (a Parquet file's bytes) at a temporary path DuckDB reads in `use`, removed after. */
export async function withParquetInDuckDB<T>(file: ArrayBuffer, use: (connection: DuckDBConnection, path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'parquet-duckdb-'));
  const path = join(dir, 'file.parquet');
  try {
    writeFileSync(path, Buffer.from(file));
    return await withDuckDB((connection) => use(connection, path));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
