/**
 * The file formats: NDJSON and CSV compressed with gzip (node:zlib, which compresses on libuv's thread
 * pool, off the event loop), and Parquet with typed columns (hyparquet-writer, pages compressed with
 * gzip) in row groups of at most ROW_GROUP_ROWS. Each writes into a FileSink, so a file's bytes leave memory a part at a time.
 */
import { once } from 'node:events';
import { createGzip, gzipSync, type Gzip } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { parquetSchema, parquetValue, type ExportColumn } from './columns.ts';
import type { FileSink } from './file-sink.ts';
import type { ExportFormat } from './resources.ts';

export type Row = Record<string, unknown>;

/** Parquet rows are kept in memory until a row group is full: this bounds that memory (the contract's bound is 100k). */
export const ROW_GROUP_ROWS = 10_000;

export interface FileWriter {
  /** Adds rows (resolves once their bytes are made and full parts stored). */
  write(rows: readonly Row[]): Promise<void>;
  /** Writes what is left (gzip's trailer, Parquet's last row group and footer). */
  end(): Promise<void>;
}

/** `tombstones`: an incremental export's, whose rows may be `{id, _deleted: true}` (a `_deleted` column in CSV and Parquet). */
export function fileWriter(format: ExportFormat, columns: readonly ExportColumn[], sink: FileSink, tombstones: boolean): FileWriter {
  switch (format) {
    case 'ndjson':
      return gzipText(sink, (rows) => rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    case 'csv':
      return csvWriter(columns, sink, tombstones);
    case 'parquet':
      return parquetWriter(columns, sink, tombstones);
  }
}

function gzipText(sink: FileSink, text: (rows: readonly Row[]) => string, header = ''): FileWriter {
  const gzip: Gzip = createGzip();
  gzip.on('data', (chunk: Buffer) => sink.push(chunk));
  const put = (chunk: string) =>
    new Promise<void>((resolve, reject) => gzip.write(chunk, (error) => (error ? reject(error) : resolve())));
  let started = false;
  return {
    write: async (rows) => {
      const body = text(rows);
      await put(started ? body : header + body);
      started = true;
      await sink.flushFull();
    },
    end: async () => {
      if (!started) await put(header);
      const ended = once(gzip, 'end');
      gzip.end();
      await ended;
    },
  };
}

/** CSV as the list's CSV export writes it: the record's columns, booleans as true/false, nested values as JSON. */
function csvWriter(columns: readonly ExportColumn[], sink: FileSink, tombstones: boolean): FileWriter {
  const names = [...columns.map((column) => column.name), ...(tombstones ? ['_deleted'] : [])];
  const options = { columns: names, cast: { boolean: (value: boolean) => (value ? 'true' : 'false'), object: (value: object) => JSON.stringify(value) } };
  const header = stringify([], { ...options, header: true });
  return gzipText(sink, (rows) => stringify(rows as Row[], options), header);
}

function parquetWriter(columns: readonly ExportColumn[], sink: FileSink, tombstones: boolean): FileWriter {
  const all: ExportColumn[] = [...columns, ...(tombstones ? [{ name: '_deleted', type: { kind: 'boolean' } } as const] : [])];
  const bytes = new ByteWriter();
  // The bytes of each row group go to the sink as soon as it is encoded; offsets stay the file's.
  const drain = () => {
    sink.push(new Uint8Array(bytes.buffer, 0, bytes.index));
    bytes.index = 0;
  };
  // GZIP per page: the nested columns (an entity's rounds, founders, news) repeat text that Snappy
  // left at about the size of the NDJSON.gz; gzip makes the file a fraction of it (bench/README.md).
  const writer = new ParquetWriter({
    writer: bytes,
    schema: parquetSchema(all) as never,
    codec: 'GZIP',
    compressors: { GZIP: (input: Uint8Array) => gzipSync(input) },
    createdBy: 'venture-data-api exports',
  });
  let pending: Row[] = [];
  const flushGroup = async () => {
    if (!pending.length) return;
    const rows = pending;
    pending = [];
    const columnData = all.map((column) => ({
      name: column.name,
      data: rows.map((row) => (column.name === '_deleted' ? row._deleted === true : parquetValue(column.type, row[column.name]))),
    }));
    writer.write({ columnData, rowGroupSize: rows.length });
    drain();
    await sink.flushFull();
  };
  return {
    write: async (rows) => {
      for (const row of rows) pending.push(row);
      if (pending.length >= ROW_GROUP_ROWS) await flushGroup();
    },
    end: async () => {
      await flushGroup();
      writer.finish();
      drain();
    },
  };
}
