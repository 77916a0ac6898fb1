/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) in this process, persisted under a
 * folder or in memory, with the same Prisma client and raw-SQL interface as PostgreSQL.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { listenPglite } from '../sql/listen.ts';
import { STREAM_BATCH_ROWS, streamPglite } from './cursor.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { createPrismaClient } from './prisma-client.ts';
import type { CancelSignal, Database, DatabaseOptions, SqlClient } from './types.ts';

export async function openPglite(options: DatabaseOptions): Promise<Database> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? lockDataDir(options.dataDir) : () => undefined;
  // pg_trgm backs name search (`name[contains]:air`), fuzzystrmatch the search's edit distance
  // (GET /api/search); PostgreSQL ships them in contrib, PGlite as bundles.
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(options.dataDir ?? 'memory://', {
      extensions: { pg_trgm, fuzzystrmatch },
      ...(options.startFrom && !options.dataDir ? { loadDataDir: options.startFrom } : {}),
    });
  } catch (error) {
    unlock();
    throw error;
  }
  const prisma = createPrismaClient(new PrismaPGlite(pglite), options);

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
    dumpDataDir: () => pglite.dumpDataDir('none'),
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
      unlock();
    },
  };
}
