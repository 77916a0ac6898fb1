/**
 * Opens the database: embedded PGlite (persisted under a folder, or in memory; src/db/pglite.ts) or a
 * PostgreSQL server through a pg pool (src/db/postgres.ts). Both give the same Prisma client and the
 * same small raw-SQL interface (src/db/types.ts), so the rest of the service never asks which one it has.
 */
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import { withReplicas } from './replicas.ts';
import type { Database, DatabaseOptions } from './types.ts';

export type { PrismaClient } from './generated/prisma/client.ts';
export type { CancelSignal, Database, DatabaseOptions, SqlClient, SqlTransaction } from './types.ts';
export { quoteIdentifier } from './identifier.ts';

/**
 * The configured database: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR/pglite
 * (its own folder, so nothing else in DATA_DIR, like admin-credentials.json, mixes with its files);
 * both bound every statement by DATABASE_STATEMENT_TIMEOUT_MS.
 */
export function databaseOptions(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_DIRECT_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'DATABASE_CONNECT_TIMEOUT_MS' | 'DATABASE_STATEMENT_TIMEOUT_MS'>
    & Partial<Pick<Config, 'DATABASE_REPLICA_URLS' | 'DATABASE_REPLICA_MAX_LAG_MS' | 'DATABASE_REPLICA_CHECK_INTERVAL_MS'>>,
): DatabaseOptions {
  return config.DATABASE_URL
    ? {
        url: config.DATABASE_URL,
        directUrl: config.DATABASE_DIRECT_URL,
        poolSize: config.DATABASE_POOL_SIZE,
        connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
        ...(config.DATABASE_REPLICA_URLS?.length
          ? { replicas: { urls: config.DATABASE_REPLICA_URLS, maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS, checkIntervalMs: config.DATABASE_REPLICA_CHECK_INTERVAL_MS } }
          : {}),
      }
    : { dataDir: join(config.DATA_DIR, 'pglite'), statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (!options.url) {
    if (options.replicas) throw new Error('Read replicas need PostgreSQL (DATABASE_URL)');
    return openPglite(options);
  }
  const primary = await openPostgres(options.url, options);
  const { replicas, ...own } = options;
  return replicas ? withReplicas(primary, replicas, (url, wrapAdapter) => openPostgres(url, { ...own, readOnly: true, wrapAdapter })) : primary;
}
