// A fresh, migrated database per test file: in-memory PGlite, or on PostgreSQL a database of its own
// whose tables sit in a schema named for the file (Keystone's pattern), chosen by TEST_DATABASE. Both
// start from a copy of what test/global-setup.ts migrated once: PGlite from a dump of its data folder,
// PostgreSQL with CREATE DATABASE ... TEMPLATE (a fifth of a second, where migrating took over half a
// second per file). The database is dropped when the file is done.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, quoteIdentifier, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createDatabase, databaseUrl, dropDatabases, testPostgresUrl } from './postgres-admin.ts';

export { testPostgresUrl } from './postgres-admin.ts';

export type TestDatabaseKind = 'pglite' | 'postgres';

let template: Blob | undefined;
/** The migrated data folder the global setup wrote, read once per test file (undefined outside vitest's run). */
function pgliteTemplate(): Blob | undefined {
  if (template) return template;
  const path = inject('pgliteTemplate');
  return path ? (template = new Blob([readFileSync(path)])) : undefined;
}

export const testDatabaseKind = (): TestDatabaseKind =>
  process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'pglite';

export interface TestDatabase extends Database {
  /** The URL and schema a second process or instance can use to open the same database (postgres only). */
  readonly connection: { url?: string; schema?: string };
  /** Closes and, for PostgreSQL, drops the schema or database. */
  destroy(): Promise<void>;
}

type Options = { migrated?: boolean; onQuery?: (sql: string) => void; statementTimeoutMs?: number };

export async function createTestDatabase(options: Options = {}): Promise<TestDatabase> {
  const kind = testDatabaseKind();
  const postgres = kind === 'postgres' && options.migrated !== false ? inject('postgresTemplate') : undefined;
  if (postgres) return copyOfPostgresTemplate(postgres, options);
  const schema = kind === 'postgres' ? `test_${randomBytes(6).toString('hex')}` : undefined;
  const url = kind === 'postgres' ? testPostgresUrl() : undefined;
  // A migrated PGlite starts from the dump test/global-setup.ts wrote: initdb and migrations ran once.
  const template = kind === 'pglite' && options.migrated !== false ? pgliteTemplate() : undefined;
  const db = await openDatabase({ url, schema, poolSize: 5, onQuery: options.onQuery, startFrom: template, statementTimeoutMs: options.statementTimeoutMs });
  if (options.migrated !== false && !template) await migrate(db.sql);
  return {
    ...db,
    connection: { url, schema },
    destroy: async () => {
      if (schema) await db.sql.exec(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      await db.close();
    },
  };
}

/**
 * A database copied from the migrated template, its schema renamed for this file: a second process
 * or pool opens it by `connection` (URL and schema) as before. Its own database also keeps what
 * PostgreSQL shares within one (NOTIFY channels, advisory locks, pg_stat_activity's `datname`)
 * apart from the files that run beside it.
 */
async function copyOfPostgresTemplate(postgres: { database: string; schema: string }, options: Options): Promise<TestDatabase> {
  const name = await createDatabase(postgres.database, { name: postgres.database, strategy: 'WAL_LOG' });
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const rename = new pg.Client({ connectionString: databaseUrl(name) });
  await rename.connect();
  try {
    await rename.query(`ALTER SCHEMA ${quoteIdentifier(postgres.schema)} RENAME TO ${quoteIdentifier(schema)}`);
  } finally {
    await rename.end();
  }
  return openOwnDatabase(name, { ...options, schema });
}

/** A test file's own PostgreSQL database, opened; destroying it drops the database. */
export async function openOwnDatabase(name: string, options: Options & { schema?: string }): Promise<TestDatabase> {
  const url = databaseUrl(name);
  const db = await openDatabase({ url, schema: options.schema, poolSize: 5, onQuery: options.onQuery, statementTimeoutMs: options.statementTimeoutMs });
  return {
    ...db,
    connection: { url, ...(options.schema ? { schema: options.schema } : {}) },
    destroy: async () => {
      await db.close();
      await dropDatabases(name);
    },
  };
}
