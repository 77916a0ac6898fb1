// An export's Parquet file, encoded on a thread of its own (src/exports/writers.ts starts one per
// file): turning 10,000 records into typed columns, encoding and compressing them takes about half a
// second of CPU, which on the main thread would make every request wait behind it. The main thread
// sends the records as the JSON text the list wrote (a string crosses threads by a copy, an object by
// a slower structured clone); each message is answered, in order, with the bytes it completed (a row
// group, or the footer at the end), moved rather than copied.
//
// Plain JavaScript, not TypeScript: a worker thread starts without the loader that runs the .ts
// sources (tsx, vitest), and scripts/build.mjs copies this file beside the built server as it is.
import { parentPort, workerData } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';

/** @type {{ schema: object[], columns: { name: string, type: object }[], rowGroupRows: number, rowGroupBytes: number }} */
const { schema, columns, rowGroupRows, rowGroupBytes } = workerData;

const bytes = new ByteWriter();
// GZIP per page: the nested columns (an entity's founders, tags) repeat text that Snappy left at
// about the size of the NDJSON.gz; every Parquet reader has gzip (docs/exports.md).
const writer = new ParquetWriter({
  writer: bytes,
  schema,
  codec: 'GZIP',
  compressors: { GZIP: (input) => gzipSync(input) },
  createdBy: 'venture-data-api exports',
});

/** A JSON value as the Parquet writer takes it: integers as bigint, times and dates as Date, by the column's type. */
function parquetValue(type, value) {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'integer':
      return BigInt(value);
    case 'date-time':
    case 'date':
      return new Date(value);
    case 'array':
      return value.map((item) => parquetValue(type.of, item));
    case 'object':
      return Object.fromEntries(type.fields.map((field) => [field.name, parquetValue(field.type, value[field.name])]));
    default:
      return value;
  }
}

let pending = [];
let pendingBytes = 0;

/** Encodes the rows held as one row group. Min/max statistics only for top-level scalars: a reader prunes by those, and nested columns' statistics cost a third of the encoding. */
function writeGroup() {
  if (!pending.length) return;
  const rows = pending;
  pending = [];
  pendingBytes = 0;
  writer.write({
    columnData: columns.map((column) => ({
      name: column.name,
      data: rows.map((row) => (column.name === '_deleted' ? row._deleted === true : parquetValue(column.type, row[column.name]))),
      statistics: column.type.kind !== 'array' && column.type.kind !== 'object',
    })),
    rowGroupSize: rows.length,
  });
}

/** What the file gained since the last answer, in a buffer of its own to move. */
function taken() {
  const done = bytes.buffer.slice(0, bytes.index);
  bytes.index = 0;
  return done;
}

parentPort.on('message', (message) => {
  try {
    if (message.rows) {
      for (const text of message.rows) {
        pending.push(JSON.parse(text));
        pendingBytes += text.length;
        // A group is encoded at its row bound, or sooner for wide records: memory follows the bytes, not the rows.
        if (pending.length >= rowGroupRows || pendingBytes >= rowGroupBytes) writeGroup();
      }
    } else {
      writeGroup();
      writer.finish();
    }
    const done = taken();
    parentPort.postMessage({ bytes: done }, [done]);
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
