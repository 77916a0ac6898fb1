// vitest globalSetup, before any test file: build dist/ (the server processes of the tests run what
// `npm start` runs), make sure the PostgreSQL test database exists, and migrate once what every test
// file starts from (test/helpers/db.ts): an embedded database written to a file (creating one runs
// initdb and the migrations, several seconds per file; loading the dump, about one), and a PostgreSQL
// database that each file's own is created from as a template.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase, quoteIdentifier } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { databaseUrl, dropDatabases, maintenance, testPostgresUrl } from './helpers/postgres-admin.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated PGlite data folder (`dumpDataDir`). */
    pgliteTemplate: string;
    /** The migrated PostgreSQL database each file copies, and the schema its tables are in (absent without a server). */
    postgresTemplate: { database: string; schema: string } | undefined;
    /** Where this run keeps the demo data set once loaded (test/helpers/demo-database.ts). */
    demoTemplates: { pglite: string; postgres: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stderr}`);

  const folder = mkdtempSync(join(tmpdir(), 'vda-pglite-template-'));
  // Named after this run's folder, so runs side by side keep theirs; the teardown drops every database
  // whose name begins with it (the copies a file did not drop).
  const postgresTemplate = { database: `test_files_${basename(folder).replace(/[^a-z0-9]/gi, '').toLowerCase()}`, schema: 'migrated' };
  const url = testPostgresUrl();
  try {
    if ((await ensureDatabase(url)) === 'created') console.log(`created the test database ${new URL(url).pathname.slice(1)}`);
    await maintenance((admin) => admin.query(`CREATE DATABASE ${quoteIdentifier(postgresTemplate.database)}`));
    const migrated = await openDatabase({ url: databaseUrl(postgresTemplate.database), schema: postgresTemplate.schema, poolSize: 1 });
    try {
      await migrate(migrated.sql);
    } finally {
      await migrated.close();
    }
    project.provide('postgresTemplate', postgresTemplate);
  } catch (error) {
    // Without a server the PGlite project still runs; the PostgreSQL project's tests then fail naming the server.
    console.warn(`could not prepare the PostgreSQL test database at ${url}: ${(error as Error).message}`);
  }

  const template = join(folder, 'migrated.tar');
  const db = await openDatabase({});
  try {
    await migrate(db.sql);
    const dump = await db.dumpDataDir!();
    writeFileSync(template, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await db.close();
  }
  project.provide('pgliteTemplate', template);
  // Built by the first test file that needs it; named after this run's folder, so runs side by side keep theirs.
  const demoPostgres = `test_demo_${basename(folder).replace(/[^a-z0-9]/gi, '').toLowerCase()}`;
  project.provide('demoTemplates', { pglite: join(folder, 'demo.tar'), postgres: demoPostgres });
  return async () => {
    rmSync(folder, { recursive: true, force: true });
    await dropDatabases(demoPostgres, true).catch(() => undefined);
    await dropDatabases(postgresTemplate.database, true).catch(() => undefined);
  };
}
