// Run as its own process with `npm start`'s node flags (test/unit/exports/parquet-thread.test.ts):
// writes a Parquet file through the export's writer, then starts a thread with the Parquet thread's
// resource limits, as the writer's next file would, and prints the size its young generation grew to
// while it allocated as fast as an encoding thread does. V8's flags are the process's, so this thread's
// heap is configured as the Parquet thread's is.
import { Worker } from 'node:worker_threads';
import { JsonText } from '../../src/compile/json-text.ts';
import { FileSink } from '../../src/exports/file-sink.ts';
import { fileWriter, PARQUET_HEAP } from '../../src/exports/writers.ts';

const sink = new FileSink(async () => undefined);
const writer = fileWriter('parquet', [{ name: 'id', type: { kind: 'integer' } }], sink, false);
await writer.write([new JsonText('{"id":1}')]);
await writer.end();
await sink.close();

const allocate = `
  const { getHeapSpaceStatistics } = require('node:v8');
  const { parentPort } = require('node:worker_threads');
  let kept = [];
  for (let i = 0; i < 2e7; i++) {
    kept.push({ i, text: 'value ' + i });
    if (kept.length > 200000) kept = [];
  }
  parentPort.postMessage(getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size);
`;
const probe = new Worker(allocate, { eval: true, resourceLimits: PARQUET_HEAP });
const [newSpaceBytes] = (await new Promise((resolve, reject) => {
  probe.once('message', (message) => resolve([message]));
  probe.once('error', reject);
})) as [number];
await probe.terminate();
process.stdout.write(`${JSON.stringify({ newSpaceMb: newSpaceBytes / 2 ** 20 })}\n`);
