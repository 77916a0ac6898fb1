// A fresh, migrated database per test file: in-memory PGlite, or a PostgreSQL schema of its own
// (Keystone's pattern), chosen by TEST_DATABASE. The schema is dropped when the file is done.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { openDatabase, quoteIdentifier, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';

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

export const testPostgresUrl = (): string =>
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase extends Database {
  /** The URL and schema a second process or instance can use to open the same database (postgres only). */
  readonly connection: { url?: string; schema?: string };
  /** Closes and, for PostgreSQL, drops the schema. */
  destroy(): Promise<void>;
}

export async function createTestDatabase(
  options: { migrated?: boolean; onQuery?: (sql: string) => void; statementTimeoutMs?: number } = {},
): Promise<TestDatabase> {
  const kind = testDatabaseKind();
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
