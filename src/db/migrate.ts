/**
 * Applies prisma/migrations/<name>/migration.sql in name order. Each migration runs in its own
 * transaction together with its row in `_migrations`, under a transaction-scoped advisory lock, so two
 * instances starting at once apply each migration exactly once: the second waits, then sees it done.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packagePath } from '../package-root.ts';
import type { SqlClient } from './client.ts';

export const MIGRATIONS_DIR = packagePath('prisma/migrations');

/** An arbitrary constant naming this service's migration lock among advisory locks (derived DDL takes it too). */
export const MIGRATION_LOCK_KEY = 727_011_521;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_migrations" (
  "name" TEXT PRIMARY KEY,
  "checksum" TEXT NOT NULL,
  "applied_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Returns the names of the migrations it applied (empty when the database was up to date). */
export async function migrate(sql: SqlClient, migrations?: Migration[]): Promise<string[]> {
  const pending = migrations ?? (await readMigrations());
  await sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(CREATE_MIGRATIONS_TABLE);
  });

  const applied: string[] = [];
  for (const migration of pending) {
    const didApply = await sql.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const done = await tx.query<{ checksum: string }>('SELECT checksum FROM "_migrations" WHERE name = $1', [
        migration.name,
      ]);
      if (done[0]) {
        if (done[0].checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was changed after it was applied (checksum differs)`);
        }
        return false;
      }
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO "_migrations" (name, checksum) VALUES ($1, $2)', [
        migration.name,
        migration.checksum,
      ]);
      return true;
    });
    if (didApply) applied.push(migration.name);
  }
  return applied;
}
