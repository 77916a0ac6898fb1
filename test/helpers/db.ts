// A fresh, migrated database per test file: in-memory PGlite, or a PostgreSQL schema of its own
// (Keystone's pattern), chosen by TEST_DATABASE. The schema is dropped when the file is done.
import { randomBytes } from 'node:crypto';
import { openDatabase, quoteIdentifier, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';

export type TestDatabaseKind = 'pglite' | 'postgres';

export const testDatabaseKind = (): TestDatabaseKind =>
  process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'pglite';

export const testPostgresUrl = (): string =>
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase extends Database {
  /** The URL and schema a second process or instance can use to open the same database (postgres only). */
  readonly connection: { url?: string; schema?: string };
  /** Closes and, for PostgreSQL, drops the schema. */
  destroy(): Promise<void>;
}

export async function createTestDatabase(
  options: { migrated?: boolean; onQuery?: (sql: string) => void } = {},
): Promise<TestDatabase> {
  const kind = testDatabaseKind();
  const schema = kind === 'postgres' ? `test_${randomBytes(6).toString('hex')}` : undefined;
  const url = kind === 'postgres' ? testPostgresUrl() : undefined;
  const db = await openDatabase({ url, schema, poolSize: 5, onQuery: options.onQuery });
  if (options.migrated !== false) await migrate(db.sql);
  return {
    ...db,
    connection: { url, schema },
    destroy: async () => {
      if (schema) await db.sql.exec(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      await db.close();
    },
  };
}
