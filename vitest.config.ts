// Every test file runs twice: once on embedded PGlite, once on the PostgreSQL server (DATABASE_URL or
// the local one). test/helpers/db.ts reads TEST_DATABASE to pick; pure unit tests simply ignore it.
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/sequencer.ts';

const postgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module). Node resolves dependencies to the CJS build while
    // Vite would give our sources the ESM one: two copies of graphql. Pin ours to Node's choice.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // Creates the PostgreSQL `test` database when the server has none (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // Vitest's default is one worker fewer than the cores: one on the 2-core machines this suite runs on,
    // which left a core idle while a file waited on the PostgreSQL server, a child process or a timer.
    // Two files at a time keep both cores busy; test/sequencer.ts starts the long ones first. A file
    // that works the CPU then shares it, and takes up to twice as long as alone: hence 60 s per test
    // (a hang still fails), where 30 s was the limit when files ran one at a time.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        // test/postgres/ needs a server: several connections or processes on one database.
        test: { name: 'pglite', env: { TEST_DATABASE: 'pglite' }, exclude: ['test/postgres/**', 'node_modules/**'] },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          env: { TEST_DATABASE: 'postgres', TEST_POSTGRES_URL: postgresUrl },
          // Pure tests (no database), the browser tests (pages, not SQL) and the embedded database's own
          // lock, statement timeout and client-left stop gain nothing from a second run.
          exclude: ['test/unit/**', 'test/browser/**', 'test/integration/data-dir-lock.test.ts', 'test/integration/embedded-statement-timeout.test.ts', 'test/integration/embedded-client-left.test.ts', 'node_modules/**'],
        },
      },
    ],
  },
});
