// vitest globalSetup, before any test file: build dist/ (the server processes of the tests run what
// `npm start` runs), make sure the PostgreSQL test database exists, and write
// a migrated embedded database once for every PGlite test file to start from (test/helpers/db.ts):
// creating one runs initdb and the migrations, several seconds per file; loading the dump, about one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { testPostgresUrl } from './helpers/db.ts';
import { dropDatabases } from './helpers/demo-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated PGlite data folder (`dumpDataDir`). */
    pgliteTemplate: string;
    /** Where this run keeps the demo data set once loaded (test/helpers/demo-database.ts). */
    demoTemplates: { pglite: string; postgres: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stderr}`);

  const url = testPostgresUrl();
  try {
    if ((await ensureDatabase(url)) === 'created') console.log(`created the test database ${new URL(url).pathname.slice(1)}`);
  } catch (error) {
    // Without a server the PGlite project still runs; the PostgreSQL project's tests then fail naming the server.
    console.warn(`could not prepare the PostgreSQL test database at ${url}: ${(error as Error).message}`);
  }

  const folder = mkdtempSync(join(tmpdir(), 'vda-pglite-template-'));
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
  };
}
