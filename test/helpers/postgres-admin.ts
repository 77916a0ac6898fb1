// Databases of the PostgreSQL test server, made and dropped through its maintenance database.
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
