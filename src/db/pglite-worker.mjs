// The embedded database's thread (src/db/pglite-remote.ts starts it): PGlite runs each statement as
// one synchronous WASM call, which nothing can interrupt, so it runs here, where the main thread can
// stop it by terminating the thread, and keeps its own event loop free meanwhile. The main thread
// sends wire-protocol messages and gets PostgreSQL's raw answer; it parses them itself, so errors keep
// their class there (a DatabaseError sent through postMessage would arrive as a plain object).
//
// Plain JavaScript, not TypeScript: a worker thread starts without the loader that runs the .ts
// sources (tsx, vitest), and scripts/build.mjs copies this file beside the built server as it is.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const { dataDir, startFrom } = workerData;
let pglite;
try {
  // pg_trgm backs name search (`name[contains]:air`), fuzzystrmatch the search's edit distance
  // (GET /api/search); PostgreSQL ships them in contrib, PGlite as bundles.
  pglite = await PGlite.create(dataDir, {
    extensions: { pg_trgm, fuzzystrmatch },
    ...(startFrom ? { loadDataDir: new Blob([startFrom]) } : {}),
  });
} catch (error) {
  parentPort.postMessage({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
}

/** The answer leaves in a buffer of its own, moved rather than copied (PGlite's may be a view of its memory). */
const moved = (bytes) => {
  const own = bytes.slice();
  return [own, [own.buffer]];
};

parentPort.on('message', async ({ id, kind, message }) => {
  try {
    if (kind === 'protocol') {
      // The data folder is PGlite's Node file system, written through: there is nothing to sync.
      const [data, transfer] = moved(await pglite.execProtocolRaw(message, { syncToFs: false }));
      parentPort.postMessage({ id, data }, transfer);
    } else if (kind === 'dump') {
      const [data, transfer] = moved(new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer()));
      parentPort.postMessage({ id, data }, transfer);
    } else if (kind === 'close') {
      await pglite.close();
      parentPort.postMessage({ id });
    }
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
parentPort.postMessage({ ready: true });
