// include_total: exact while PostgreSQL expects few matches, its planner's estimate above
// EXACT_TOTAL_LIMIT (marked total_is_estimate), so a total never costs a scan of a million rows.
// The limit is lowered here so 300 seeded entities cross it. PGlite has no estimates: always exact.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { testDatabaseKind } from '../../helpers/db.ts';

const LIMIT = 50;
let app: TestApp;
let client: TestCredentials;
let live: number;

beforeAll(async () => {
  app = await startTestApp({ env: { EXACT_TOTAL_LIMIT: String(LIMIT) } });
  await seedDatabase(app.db, { entities: 300 });
  await app.db.sql.exec('ANALYZE');
  client = await createApiKeyAndToken(app);
  const [row] = await app.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM entities WHERE deleted_at IS NULL');
  live = row!.n;
}, 120_000);

afterAll(async () => {
  await app.close();
});

interface Page {
  total?: number;
  total_is_estimate?: boolean;
}

async function page(query: string): Promise<Page> {
  const response = await client.fetch(`/api/entities?limit=1&include_total=true&${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { page: Page }).page;
}

it('estimates a broad total on PostgreSQL, and counts it exactly on PGlite', async () => {
  expect(live).toBeGreaterThan(LIMIT);
  const { total, total_is_estimate } = await page('');
  if (testDatabaseKind() === 'postgres') {
    expect(total_is_estimate).toBe(true);
    expect(Math.abs(total! - live) / live).toBeLessThan(0.2);
  } else {
    expect(total_is_estimate).toBeUndefined();
    expect(total).toBe(live);
  }
});

it('counts a selective filter exactly, without the estimate flag', async () => {
  const [row] = await app.db.sql.query<{ name: string; n: number }>(
    `SELECT name, count(*) OVER (PARTITION BY name)::int AS n FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 1`,
  );
  const filter = encodeURIComponent(`name:"${row!.name}"`);
  const result = await page(`filter=${filter}`);
  expect(result).toEqual({ ...result, total: row!.n });
  expect(result.total_is_estimate).toBeUndefined();
});

it('says the same over GraphQL', async () => {
  const { body } = await client.graphql('{ entities(limit: 1) { page { total total_is_estimate } } }');
  const { total, total_is_estimate } = (body.data as { entities: { page: Page } }).entities.page;
  expect(total_is_estimate).toBe(testDatabaseKind() === 'postgres');
  if (testDatabaseKind() === 'pglite') expect(total).toBe(live);
});

it('omits the total unless asked', async () => {
  const response = await client.fetch('/api/entities?limit=1');
  const body = (await response.json()) as { page: Page };
  expect(body.page.total).toBeUndefined();
  expect(body.page.total_is_estimate).toBeUndefined();
});
