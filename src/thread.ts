/**
 * Every thread this server starts (the embedded database's, a Parquet file's) is started here, so that
 * its heap is the one its own options give it.
 *
 * `npm start` sizes the main thread's young generation with `--max-semi-space-size=64` (docs/operations.md,
 * "Memory"), and V8 applies that flag to every heap it configures, over a thread's `resourceLimits`: a
 * Parquet file's thread grew a young generation of 128 MB, most of what an export of a million entities
 * grew the server by. V8 reads the flag only when it configures a heap, so clearing it once the main
 * thread's heap exists leaves that one as it is.
 */
import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startThread(url: URL, options: WorkerOptions): Worker {
  setFlagsFromString('--max-semi-space-size=0');
  return new Worker(url, options);
}
