// Databases of the PostgreSQL test server, made and dropped through its maintenance database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { quoteIdentifier } from '../../src/db/client.ts';

export const testPostgresUrl = (): string =>
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The test server's URL with another database. */
export function databaseUrl(name: string): string {
  const url = new URL(testPostgresUrl());
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

export async function maintenance<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Drops the databases named, and with `prefix` every one whose name begins with it (the global teardown). */
export async function dropDatabases(name: string, prefix = false): Promise<void> {
  await maintenance(async (admin) => {
    const names = prefix
      ? (await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [name])).rows.map((row) => row.datname)
      : [name];
    for (const each of names) await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(each)} WITH (FORCE)`);
  });
}

/**
 * A new database named `<prefix>_<random>`: empty, or a copy of `template`. FILE_COPY copies the
 * template's files, seconds for a loaded database that the default WAL_LOG would write through the WAL;
 * for a small one WAL_LOG is the cheaper (FILE_COPY checkpoints twice).
 */
export async function createDatabase(prefix: string, template?: { name: string; strategy: 'WAL_LOG' | 'FILE_COPY' }): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const copy = template ? ` TEMPLATE ${quoteIdentifier(template.name)} STRATEGY ${template.strategy}` : '';
  await maintenance((admin) => admin.query(`CREATE DATABASE ${quoteIdentifier(name)}${copy}`));
  return name;
}
