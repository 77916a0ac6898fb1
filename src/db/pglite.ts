/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) in a thread of its own
 * (src/db/pglite-remote.ts), which bounds every statement by DATABASE_STATEMENT_TIMEOUT_MS; persisted
 * under a folder, with the same Prisma client and raw-SQL interface as PostgreSQL.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mutex, type PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { listenPglite } from '../sql/listen.ts';
import { STREAM_BATCH_ROWS, streamPglite } from './cursor.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { RemotePGlite } from './pglite-remote.ts';
import { createPrismaClient } from './prisma-client.ts';
import type { CancelSignal, Database, DatabaseOptions, SqlClient } from './types.ts';
import { ClientLeftBeforeStatement } from './unavailable.ts';

/** The temporary folders of in-memory databases still open: removed at exit too, when one is never closed. */
const temporaryFolders = new Set<string>();
let removeAtExit = false;

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'venture-pglite-'));
  temporaryFolders.add(folder);
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', () => {
      for (const left of temporaryFolders) rmSync(left, { recursive: true, force: true });
    });
  }
  return folder;
}

export async function openPglite(options: DatabaseOptions): Promise<Database> {
  // "In memory" is a temporary folder, removed at close: a statement that times out ends with its
  // thread, and the database must reopen with every committed write, which memory would not keep.
  const dataDir = options.dataDir ?? temporaryFolder();
  const removeTemporary = () => {
    if (options.dataDir) return;
    rmSync(dataDir, { recursive: true, force: true });
    temporaryFolders.delete(dataDir);
  };
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? lockDataDir(options.dataDir) : () => undefined;
  let pglite: RemotePGlite;
  try {
    pglite = await RemotePGlite.open({
      dataDir,
      startFrom: options.dataDir ? undefined : options.startFrom,
      statementTimeoutMs: options.statementTimeoutMs,
    });
  } catch (error) {
    unlock();
    removeTemporary();
    throw error;
  }
  // The adapter asks for PGlite's class; it uses query, exec and transaction, which this one has.
  const prisma = createPrismaClient(new PrismaPGlite(pglite as unknown as PGlite), options);

  // The one session cannot cancel the statement it runs (no second session to send the cancel from),
  // so a read whose client left is stopped where it can be: before it is sent. Reads take turns here,
  // and each looks at its signal when its turn comes, so a request that queued many statements (a
  // list's similar companies by the resolvers, a match batch) sends none once its client has gone,
  // and the requests behind them are served (docs/operations.md).
  const readTurns = new Mutex();
  const unlessLeft = <T,>(signal: CancelSignal | undefined, read: () => Promise<T>): Promise<T> => {
    if (signal?.aborted) return Promise.reject(new ClientLeftBeforeStatement());
    if (!signal) return read();
    return readTurns.runExclusive(() => (signal.aborted ? Promise.reject(new ClientLeftBeforeStatement()) : read()));
  };
  const sql: SqlClient = {
    exec: async (text) => void (await pglite.exec(text)),
    query: async <Row,>(text: string, params: unknown[] = []) => (await pglite.query<Row>(text, params)).rows,
    prepared: <Row,>(text: string, params: readonly unknown[], signal?: CancelSignal) =>
      unlessLeft(signal, async () => {
        options.onQuery?.(text);
        return (await pglite.query<Row>(text, [...params])).rows;
      }),
    stream: <Row,>(text: string, params: readonly unknown[], signal?: CancelSignal, batchRows = STREAM_BATCH_ROWS) => {
      options.onQuery?.(text);
      if (!signal) return streamPglite<Row>(pglite, text, params, batchRows);
      return (async function* () {
        // As on PostgreSQL (src/db/postgres.ts): an export whose client left before it began is not run.
        if (signal.aborted) throw new ClientLeftBeforeStatement();
        yield* streamPglite<Row>(pglite, text, params, batchRows);
      })();
    },
    transaction: (work) =>
      pglite.transaction((tx) =>
        work({
          exec: async (text) => void (await tx.exec(text)),
          query: async <Row,>(text: string, params: unknown[] = []) => (await tx.query<Row>(text, params)).rows,
        }),
      ),
    listen: (channel, handlers) => listenPglite(pglite, channel, handlers),
  };

  return {
    kind: 'pglite',
    prisma,
    sql,
    sessionSql: sql,
    dumpDataDir: () => pglite.dumpDataDir(),
    withoutStatementTimeout: (work) => pglite.withoutDeadline(work),
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
      unlock();
      removeTemporary();
    },
  };
}
