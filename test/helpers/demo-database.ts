// A database holding the demo data set (24k entities, 38k rounds), as `npm start` loads it, for the
// tests that need real volume. Loading it takes 20-30 s, so a run loads it once per database kind and
// every test file starts from a copy of that: PGlite from a dump of its data folder (as the migrated
// template, test/global-setup.ts), PostgreSQL from a database created with the loaded one as template.
// The first file to ask builds it while the others wait; the global setup's teardown removes it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type pg from 'pg';
import { inject } from 'vitest';
import { loadDemoDataIfEmpty } from '../../src/data/demo.ts';
import { openDatabase, quoteIdentifier } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createTestDatabase, openOwnDatabase, testDatabaseKind, type TestDatabase } from './db.ts';
import { createDatabase, databaseUrl, maintenance } from './postgres-admin.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** Waiting for another file to build it: loading takes 30 s on an idle machine, several times that on a busy one. */
const BUILD_WAIT_MS = 600_000;
/** Any fixed key: only test runs take it, on the maintenance database. */
const POSTGRES_BUILD_LOCK = 7_346_291;

export async function createDemoDatabase(options: { onQuery?: (sql: string) => void } = {}): Promise<TestDatabase> {
  const templates = inject('demoTemplates');
  return testDatabaseKind() === 'pglite' ? pgliteDemo(templates.pglite, options) : postgresDemo(templates.postgres, options);
}

let dump: Blob | undefined;

async function pgliteDemo(path: string, options: { onQuery?: (sql: string) => void }): Promise<TestDatabase> {
  dump ??= new Blob([readFileSync(await builtOnce(path, buildPgliteDump))]);
  const db = await openDatabase({ poolSize: 5, startFrom: dump, onQuery: options.onQuery });
  return { ...db, connection: {}, destroy: () => db.close() };
}

async function buildPgliteDump(path: string): Promise<void> {
  const db = await createTestDatabase();
  try {
    await load(db);
    // WAL the load wrote and no one needs: a third of the folder otherwise.
    await db.sql.exec('CHECKPOINT');
    writeFileSync(`${path}.partial`, Buffer.from(await (await db.dumpDataDir!()).arrayBuffer()));
    renameSync(`${path}.partial`, path);
  } finally {
    await db.destroy();
  }
}

/** `path` once some test file of this run has built it, this one if it is the first to ask. */
async function builtOnce(path: string, build: (path: string) => Promise<void>): Promise<string> {
  const failed = `${path}.failed`;
  try {
    mkdirSync(`${path}.lock`);
  } catch {
    const until = Date.now() + BUILD_WAIT_MS;
    while (!existsSync(path)) {
      if (existsSync(failed)) throw new Error(`the demo database could not be built: ${readFileSync(failed, 'utf8')}`);
      if (Date.now() > until) throw new Error(`no demo database at ${path} after ${BUILD_WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return path;
  }
  try {
    await build(path);
  } catch (error) {
    writeFileSync(failed, String((error as Error).stack ?? error));
    throw error;
  }
  return path;
}

async function postgresDemo(template: string, options: { onQuery?: (sql: string) => void }): Promise<TestDatabase> {
  await maintenance(async (admin) => {
    // The template exists only once loaded (it is renamed into place), so a file that finds it may copy it.
    await admin.query('SELECT pg_advisory_lock($1)', [POSTGRES_BUILD_LOCK]);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (!found.rowCount) await buildPostgresTemplate(admin, template);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [POSTGRES_BUILD_LOCK]);
    }
  });
  return openOwnDatabase(await createDatabase(template, { name: template, strategy: 'FILE_COPY' }), options);
}

async function buildPostgresTemplate(admin: pg.Client, template: string): Promise<void> {
  const building = `${template}_building`;
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(building)} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${quoteIdentifier(building)}`);
  const db = await openDatabase({ url: databaseUrl(building), poolSize: 5 });
  try {
    await migrate(db.sql);
    await load(db);
  } finally {
    await db.close();
  }
  await admin.query(`ALTER DATABASE ${quoteIdentifier(building)} RENAME TO ${quoteIdentifier(template)}`);
}

async function load(db: Parameters<typeof loadDemoDataIfEmpty>[0]): Promise<void> {
  const result = await loadDemoDataIfEmpty(db, quiet as never);
  if (!result.loaded) throw new Error(`the demo data set was not loaded: ${JSON.stringify(result)}`);
}
