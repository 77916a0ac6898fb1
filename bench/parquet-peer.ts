/**
 * The peer for the Parquet size target (bench/exports.ts): DuckDB's own Parquet writer, a warehouse
 * engine's, writing the same rows with the same typed columns (it reads our files and writes them
 * again), with each setting of BENCH_PARQUET_PEER: `codec[:level][@rows]`, comma-separated (default
 * `gzip,zstd,zstd:9`; `zstd:22` and `brotli` are its smallest, and slow). Its row groups are its
 * default (122,880 rows) unless `@rows` sets them: what a writer that holds a whole group makes.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export interface PeerFile {
  setting: string;
  bytes: number;
  seconds: number;
}

export const PEER_SETTINGS = (process.env.BENCH_PARQUET_PEER ?? 'gzip,zstd,zstd:9').split(',').filter(Boolean);

/** `files`: our Parquet files of one export, in order. */
export async function peerParquet(files: readonly string[], settings: readonly string[] = PEER_SETTINGS): Promise<PeerFile[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const directory = mkdtempSync(join(tmpdir(), 'vda-parquet-peer-'));
  try {
    const source = `read_parquet([${files.map((file) => `'${file}'`).join(', ')}])`;
    const written: PeerFile[] = [];
    for (const setting of settings) {
      const parsed = /^([a-z]+)(?::(\d+))?(?:@(\d+))?$/.exec(setting);
      if (!parsed) throw new Error(`BENCH_PARQUET_PEER: "${setting}" is not codec[:level][@rows]`);
      const [, codec, level, rows] = parsed;
      const options = [`FORMAT parquet`, `COMPRESSION ${codec}`, ...(level ? [`COMPRESSION_LEVEL ${level}`] : []), ...(rows ? [`ROW_GROUP_SIZE ${rows}`] : [])];
      const target = join(directory, `${written.length}.parquet`);
      const started = performance.now();
      await connection.run(`COPY (SELECT * FROM ${source}) TO '${target}' (${options.join(', ')})`);
      written.push({ setting, bytes: statSync(target).size, seconds: (performance.now() - started) / 1000 });
    }
    return written;
  } finally {
    connection.closeSync();
    instance.closeSync();
    rmSync(directory, { recursive: true, force: true });
  }
}
