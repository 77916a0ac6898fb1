// vitest globalSetup: before any test file, make sure the PostgreSQL test database exists.
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { testPostgresUrl } from './helpers/db.ts';

export default async function setup(): Promise<void> {
  const url = testPostgresUrl();
  try {
    if ((await ensureDatabase(url)) === 'created') console.log(`created the test database ${new URL(url).pathname.slice(1)}`);
  } catch (error) {
    // Without a server the PGlite project still runs; the PostgreSQL project's tests then fail naming the server.
    console.warn(`could not prepare the PostgreSQL test database at ${url}: ${(error as Error).message}`);
  }
}
