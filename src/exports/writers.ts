/**
 * The file formats: NDJSON and CSV compressed with gzip (node:zlib, which compresses on libuv's thread
 * pool, off the event loop), and Parquet with typed columns (src/exports/parquet-file.mjs on a thread of
 * its own, pages compressed with gzip) in row groups of at most ROW_GROUP_ROWS rows and about ROW_GROUP_BYTES.
 * Each writes into a FileSink, so a file's bytes leave memory a part at a time.
 */
import { once } from 'node:events';
import { createGzip, type Gzip } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';
import { JsonText, materialize } from '../compile/json-text.ts';
import { startThread } from '../thread.ts';
import { parquetSchema, type ExportColumn } from './columns.ts';
import type { FileSink } from './file-sink.ts';
import type { ExportFormat } from './resources.ts';

/** A record as the list answered it: the JSON text PostgreSQL wrote, or an object (a `fields` projection, a tombstone). */
export type Row = JsonText | Record<string, unknown>;

/** A record's JSON, the list's own text when it has one (so an NDJSON line is the list's record, byte for byte). */
const rowText = (row: Row): string => (row instanceof JsonText ? row.text : JSON.stringify(row));

/** A Parquet row group's rows: the contract's bound. A group holds compressed pages, not records, so its memory follows its bytes. */
export const ROW_GROUP_ROWS = 100_000;
/** And a group of wide records closes sooner, at about this many bytes of compressed pages and dictionaries. */
export const ROW_GROUP_BYTES = 32 << 20;
/**
 * Records' JSON sent to the Parquet thread ahead of its encoding: reads go on while it works, and
 * at most this much waits in its queue.
 */
const PARQUET_QUEUE_BYTES = 4 << 20;

/**
 * The encoding thread's heap. Left to itself V8 lets a thread that allocates this fast grow its heap
 * long before it collects; a thread that ran out would fail its export, not the server. (These hold
 * under `npm start`'s flags because src/thread.ts starts the thread.)
 */
export const PARQUET_HEAP = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 };

export interface FileWriter {
  /** Adds rows (resolves once their bytes are made and full parts stored). */
  write(rows: readonly Row[]): Promise<void>;
  /** Writes what is left (gzip's trailer, Parquet's last row group and footer). */
  end(): Promise<void>;
  /** Lets go of what the writer holds (its thread) when the file is abandoned. */
  dispose(): Promise<void>;
}

/** `tombstones`: an incremental export's, whose rows may be `{id, _deleted: true}` (a `_deleted` column in CSV and Parquet). */
export function fileWriter(format: ExportFormat, columns: readonly ExportColumn[], sink: FileSink, tombstones: boolean): FileWriter {
  switch (format) {
    case 'ndjson':
      return gzipText(sink, (rows) => rows.map((row) => `${rowText(row)}\n`).join(''));
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
    dispose: async () => {
      gzip.destroy();
    },
  };
}

/** CSV as the list's CSV export writes it: the record's columns, booleans as true/false, nested values as JSON. */
function csvWriter(columns: readonly ExportColumn[], sink: FileSink, tombstones: boolean): FileWriter {
  const names = [...columns.map((column) => column.name), ...(tombstones ? ['_deleted'] : [])];
  const options = { columns: names, cast: { boolean: (value: boolean) => (value ? 'true' : 'false'), object: (value: object) => JSON.stringify(value) } };
  const header = stringify([], { ...options, header: true });
  return gzipText(sink, (rows) => stringify(rows.map(materialize) as Record<string, unknown>[], options), header);
}

/** One Parquet file, encoded on its own thread (src/exports/parquet-worker.mjs): the main thread only hands it the records' text. */
function parquetWriter(columns: readonly ExportColumn[], sink: FileSink, tombstones: boolean): FileWriter {
  const all: ExportColumn[] = [...columns, ...(tombstones ? [{ name: '_deleted', type: { kind: 'boolean' } } as const] : [])];
  const worker = startThread(new URL('./parquet-worker.mjs', import.meta.url), {
    workerData: { schema: parquetSchema(all), tombstones, rowGroupRows: ROW_GROUP_ROWS, rowGroupBytes: ROW_GROUP_BYTES },
    resourceLimits: PARQUET_HEAP,
  });
  // Answers come in the order the messages went: each settles the oldest question, its bytes go to the sink in file order.
  const waiting: { resolve(): void; reject(error: Error): void }[] = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const question of waiting.splice(0)) question.reject(failure);
  };
  worker.on('message', (answer: { bytes?: ArrayBuffer; error?: string }) => {
    if (answer.error !== undefined) return fail(new Error(`Parquet encoding failed: ${answer.error}`));
    sink.push(new Uint8Array(answer.bytes!));
    waiting.shift()?.resolve();
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the Parquet thread exited (${code})`)));
  const ask = (message: { rows: string[] } | { end: true }) =>
    new Promise<void>((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.push({ resolve, reject });
      worker.postMessage(message);
    });
  const inFlight: { sent: Promise<void>; bytes: number }[] = [];
  let inFlightBytes = 0;
  return {
    write: async (rows) => {
      const texts = rows.map(rowText);
      const bytes = texts.reduce((sum, text) => sum + text.length, 0);
      const sent = ask({ rows: texts });
      sent.catch(() => undefined);
      inFlight.push({ sent, bytes });
      inFlightBytes += bytes;
      while (inFlightBytes > PARQUET_QUEUE_BYTES) {
        const oldest = inFlight.shift()!;
        await oldest.sent;
        inFlightBytes -= oldest.bytes;
      }
      await sink.flushFull();
    },
    end: async () => {
      await Promise.all(inFlight.map((batch) => batch.sent));
      await ask({ end: true });
      await worker.terminate();
    },
    dispose: async () => {
      await worker.terminate();
    },
  };
}
