// A compiled list page is planned once per session, not on every request: its LIMIT is written into
// the statement, so PostgreSQL's plan cache settles on the generic plan of a prepared statement. Bound
// as a parameter, the limit left the planner costing a generic plan as if a tenth of the table were
// read, and it re-planned every execution. Each statement is captured as the app sends it, then
// prepared on a session of the test's own, where pg_prepared_statements counts the plans it used.
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { recordingStatements, type SentStatement } from '../helpers/compiled-reads.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

const EXECUTIONS = 10;

let captured: SentStatement[];
let db: TestDatabase;
let app: TestApp;
let auth: TestCredentials;
let session: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 5_000 });
  const recording = recordingStatements(db);
  captured = recording.sent;
  app = await startTestApp({ db: recording.db });
  auth = await createApiKeyAndToken(app);
  session = new pg.Client({ connectionString: db.connection.url, options: `-c search_path="${db.connection.schema}"` });
  await session.connect();
}, 120_000);

afterAll(async () => {
  await session?.end();
  await app?.close();
  await db?.destroy();
});

/** The statement the app sends for a request (the last one it prepared). */
async function statementOf(request: () => Promise<Response>): Promise<SentStatement> {
  captured.length = 0;
  const response = await request();
  expect(response.status).toBe(200);
  expect(captured.length).toBeGreaterThan(0);
  return captured[captured.length - 1]!;
}

let statements = 0;
/** Runs a statement as a named prepared statement and reads how PostgreSQL planned its executions. */
async function plansOf(statement: SentStatement) {
  const name = `page_${(statements += 1)}`;
  for (let i = 0; i < EXECUTIONS; i += 1) await session.query({ name, text: statement.sql, values: [...statement.params] });
  const { rows } = await session.query<{ generic_plans: string; custom_plans: string }>(
    'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1',
    [name],
  );
  return { generic: Number(rows[0]!.generic_plans), custom: Number(rows[0]!.custom_plans) };
}

const graphql = (query: string) => () =>
  auth.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

const FIRST_PAGES: [string, () => Promise<Response>][] = [
  ['REST list', () => auth.fetch('/api/entities')],
  ['REST list, filter and sort', () => auth.fetch(`/api/entities?filter=${encodeURIComponent('and(launch_year[gte]:2010,is_company:true)')}&sort=-total_funding_usd&limit=25`)],
  ['GraphQL flat', graphql('{ entities(limit: 25) { data { id name tagline hq_country } } }')],
  ['GraphQL nested', graphql('{ entities(limit: 25) { data { name founders { name companies { entity { name } } } } } }')],
  ['REST rounds by date', () => auth.fetch('/api/transactions?sort=-date')],
];

it.each(FIRST_PAGES)('%s: the page statement writes its limit and is planned once, generically', async (_name, request) => {
  const statement = await statementOf(request);
  expect(statement.sql).toMatch(/LIMIT \d+\)? p JOIN/);
  expect(statement.sql).not.toContain('OFFSET');
  const plans = await plansOf(statement);
  // The first five executions are planned for their values while the plan cache compares; after that,
  // every one runs the generic plan.
  expect(plans.generic).toBeGreaterThanOrEqual(EXECUTIONS - 5);
});

it('a page after a cursor is planned once too', async () => {
  const first = await auth.fetch('/api/entities?sort=-total_funding_usd&limit=10');
  const cursor = ((await first.json()) as { page: { next_cursor: string } }).page.next_cursor;
  const statement = await statementOf(() => auth.fetch(`/api/entities?sort=-total_funding_usd&limit=10&cursor=${encodeURIComponent(cursor)}`));
  expect(statement.sql).toMatch(/LIMIT 11\)? p JOIN/);
  expect((await plansOf(statement)).generic).toBeGreaterThanOrEqual(EXECUTIONS - 5);
});

it('an offset page binds its offset (open-ended values are not statements of their own) and answers the rows after it', async () => {
  const statement = await statementOf(() => auth.fetch('/api/entities?sort=name&limit=10&offset=20'));
  expect(statement.sql).toMatch(/LIMIT 11 OFFSET \$\d+\)? p JOIN/);
  expect(statement.params).toContain(20);
  const page = (await (await auth.fetch('/api/entities?sort=name&limit=10&offset=20')).json()) as { data: { id: number }[] };
  const { rows } = await session.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY name, id LIMIT 10 OFFSET 20');
  expect(page.data.map((row) => row.id)).toEqual(rows.map((row) => row.id));
});
