// An export's Parquet file, encoded on a thread of its own (src/exports/writers.ts starts one per
// file): parsing the records, shredding them into columns, encoding and compressing their pages takes
// about 25 µs of CPU a record (an entity with its tags and founders), which on the main thread would
// make every request wait behind it. The main thread sends the records as the JSON text the list
// wrote (a string crosses threads by a copy, an object by a slower structured clone); each message is
// answered, in order, with the bytes it completed (a row group once it closes, the footer at the end),
// moved rather than copied.
//
// Plain JavaScript, not TypeScript: a worker thread starts without the loader that runs the .ts
// sources (tsx, vitest), and scripts/build.mjs copies this file beside the built server as it is.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { FileBytes, ParquetFile } from './parquet-file.mjs';

/** @type {{ schema: object[], tombstones: boolean, rowGroupRows: number, rowGroupBytes: number }} */
const { schema, tombstones, rowGroupRows, rowGroupBytes } = workerData;

/**
 * Encoding is background work: 10 nice levels below the server, the scheduler gives the cores to a
 * request's thread and its database backend first (reads by id during a Parquet export of 1M entities
 * on 2 cores: p95 23 and 28 ms, where at the server's priority 36 and 49 ms; the export took as long).
 * On Linux a thread's nice is its own; elsewhere (no /proc/thread-self) the thread keeps the server's.
 */
function lowerPriority() {
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    setPriority(thread, Math.min(19, getPriority(thread) + 10));
  } catch {
    // not Linux: the thread runs at the server's priority
  }
}
lowerPriority();

const bytes = new FileBytes();
const file = new ParquetFile({ out: bytes, schema, createdBy: 'venture-data-api exports' });

parentPort.on('message', (message) => {
  try {
    if (message.rows) {
      const records = message.rows.map((text) => JSON.parse(text));
      // An incremental export's `_deleted` is true on a tombstone and false, not null, on every other row.
      if (tombstones) for (const record of records) record._deleted = record._deleted === true;
      // A group never passes its row bound: the records are added up to it, the group closed, and the rest added.
      for (let start = 0; start < records.length; ) {
        const end = Math.min(records.length, start + rowGroupRows - file.groupRows);
        file.add(records.slice(start, end));
        start = end;
        // Its memory is its compressed pages: a group of wide records closes at their bound.
        if (file.groupRows >= rowGroupRows || file.heldBytes >= rowGroupBytes) file.closeGroup();
      }
    } else {
      file.finish();
    }
    const done = bytes.take();
    parentPort.postMessage({ bytes: done }, [done]);
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
