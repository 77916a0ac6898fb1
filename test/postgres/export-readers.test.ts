// An export runs EXPORT_READERS statements at once only while its instance serves no traffic
// (src/exports/job.ts): on a quiet instance two of its list statements are seen running together in
// PostgreSQL (a client polling the export's status now and then is not traffic), and while requests
// keep coming never more than one. Seen from the server's own pg_stat_activity, sampled as fast as a
// second session can; the sampler reads the export's status from the database.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createExport } from '../integration/exports/support.ts';

let db: TestDatabase;
let app: TestApp;
let auth: TestCredentials;
let sampler: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 3_000, seed: 5 });
  app = await startTestApp({ db, env: { BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50', EXPORT_PAGE_ROWS: '10', EXPORT_READERS: '2' } });
  auth = await createApiKeyAndToken(app);
  sampler = new pg.Client({ connectionString: db.connection.url });
  await sampler.connect();
}, 180_000);

afterAll(async () => {
  await sampler?.end();
  await app?.close();
  await db?.destroy();
});

/**
 * The most of the export's list statements seen running at once until it finished (and that it
 * succeeded). pg_stat_activity keeps a statement's first 1,024 bytes: an entity record's early
 * columns name it, and the founders read as traffic have none of them.
 */
async function mostAtOnce(id: number): Promise<number> {
  let most = 0;
  for (;;) {
    const [sample] = (
      await sampler.query<{ running: number; status: string }>(
        `SELECT (SELECT count(*)::int FROM pg_stat_activity
                  WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
                    AND query LIKE '%row_to_json%' AND query LIKE '%r."is_company"%') AS running,
                (SELECT status FROM ${db.connection.schema}.exports WHERE id = $1) AS status`,
        [id],
      )
    ).rows;
    most = Math.max(most, sample!.running);
    if (!['queued', 'running'].includes(sample!.status)) {
      expect(sample!.status).toBe('succeeded');
      return most;
    }
  }
}

it('on a quiet instance, runs its readers at once; a client polling its status is not traffic', async () => {
  const created = await createExport(auth, { resource: 'entities', format: 'ndjson' });
  let polling = true;
  const polls = (async () => {
    let count = 0;
    while (polling) {
      expect((await auth.fetch(`/api/exports/${created.id}`)).status).toBe(200);
      count += 1;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return count;
  })();
  try {
    expect(await mostAtOnce(created.id)).toBe(2);
  } finally {
    polling = false;
  }
  expect(await polls).toBeGreaterThan(1);
});

it('while requests keep coming, reads one window at a time', async () => {
  let serving = true;
  // Traffic that reads no entity list, two clients back to back: a request is nearly always in flight.
  const client = async () => {
    let requests = 0;
    while (serving) {
      expect((await auth.fetch('/api/founders?limit=5')).status).toBe(200);
      requests += 1;
    }
    return requests;
  };
  const traffic = Promise.all([client(), client()]);
  try {
    const created = await createExport(auth, { resource: 'entities', format: 'ndjson' });
    expect(await mostAtOnce(created.id)).toBe(1);
  } finally {
    serving = false;
  }
  expect((await traffic).every((requests) => requests > 10)).toBe(true);
});
