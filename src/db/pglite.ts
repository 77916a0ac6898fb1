/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) in a thread of its own
 * (src/db/pglite-remote.ts), which bounds every statement by DATABASE_STATEMENT_TIMEOUT_MS; persisted
 * under a folder, with the same Prisma client and raw-SQL interface as PostgreSQL.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { listenPglite } from '../sql/listen.ts';
import { STREAM_BATCH_ROWS, streamPglite } from './cursor.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { RemotePGlite } from './pglite-remote.ts';
import { createPrismaClient } from './prisma-client.ts';
import type { CancelSignal, Database, DatabaseOptions, SqlClient } from './types.ts';

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

  const sql: SqlClient = {
    exec: async (text) => void (await pglite.exec(text)),
    query: async <Row,>(text: string, params: unknown[] = []) => (await pglite.query<Row>(text, params)).rows,
    prepared: async <Row,>(text: string, params: readonly unknown[]) => {
      options.onQuery?.(text);
      return (await pglite.query<Row>(text, [...params])).rows;
    },
    stream: <Row,>(text: string, params: readonly unknown[], _signal?: CancelSignal, batchRows = STREAM_BATCH_ROWS) => {
      options.onQuery?.(text);
      return streamPglite<Row>(pglite, text, params, batchRows);
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
