// CSV export of an aggregate over the demo data set: one aggregate statement however small `limit` is
// (the groups come from a cursor, never one aggregate per page), every group to the last one in the
// JSON pages' order, charged once; and on PostgreSQL the statement is cancelled when the client leaves.
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { testDatabaseKind, testPostgresUrl } from '../helpers/db.ts';

let app: TestApp;
let auth: TestCredentials;
/** Every aggregate statement the app ran (the texts of `WITH g AS (...)`), in order. */
const aggregates: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ demo: true, onQuery: (sql) => void (sql.startsWith('WITH g AS (') && aggregates.push(sql)) });
  auth = await createApiKeyAndToken(app, { permissions: ['read:entities', 'read:transactions', 'read:investors'] });
}, 600_000);

afterAll(async () => {
  await app?.close();
}, 120_000);

type Group = Record<string, unknown>;

/** The aggregate's groups as its JSON pages give them, 500 a page by offset (the reference an export must equal). */
async function jsonGroups(query: string): Promise<Group[]> {
  const groups: Group[] = [];
  for (let offset = 0; ; offset += 500) {
    const response = await auth.fetch(`${query}&limit=500&offset=${offset}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Group[]; page: { total: number } };
    groups.push(...body.data);
    if (offset + 500 >= body.page.total) return groups;
  }
}

/** A group as a CSV row writes it: every cell text, null empty. */
const asCsv = (group: Group): Record<string, string> => Object.fromEntries(Object.entries(group).map(([key, value]) => [key, value === null ? '' : String(value)]));

describe('CSV export of an aggregate', () => {
  it('with limit=1 over thousands of groups is one statement, and has every group in the JSON order', async () => {
    const query = '/api/aggregate/entities?metric=count&metric=latest,max:launch_year&group_by=name';
    const expected = (await jsonGroups(query)).map(asCsv);
    expect(expected.length).toBeGreaterThan(5_000);
    aggregates.length = 0;
    const started = performance.now();
    const response = await auth.fetch(`${query}&limit=1&format=csv`);
    expect(response.status).toBe(200);
    const text = await response.text();
    console.info(`aggregate CSV export, ${expected.length} groups, limit=1: ${Math.round(performance.now() - started)} ms, ${aggregates.length} statement(s)`);
    expect(aggregates.length).toBe(1);
    expect(text.split('\n', 1)[0]).toBe('name,count,latest');
    expect(parse(text, { columns: true })).toEqual(expected);
  }, 120_000);

  it('leaves the server free meanwhile: a one-row read is answered while the export streams', async () => {
    const response = await auth.fetch('/api/aggregate/entities?metric=count&group_by=name&limit=1&format=csv');
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    // A slow reader keeps the export going while the read is asked.
    const reading = (async () => {
      for (let next = await reader.read(); !next.done; next = await reader.read()) await new Promise((resolve) => setTimeout(resolve, 5));
    })();
    const started = performance.now();
    expect((await auth.fetch('/api/entities?limit=1')).status).toBe(200);
    const took = performance.now() - started;
    console.info(`a one-row read during an aggregate export: ${Math.round(took)} ms`);
    expect(took).toBeLessThan(3_000);
    await reading;
  }, 120_000);

  it('starts at the offset asked for and runs to the last group', async () => {
    const query = '/api/aggregate/entities?metric=count&group_by=hq_country,launch_year';
    const expected = (await jsonGroups(query)).map(asCsv);
    aggregates.length = 0;
    const response = await auth.fetch(`${query}&limit=3&offset=7&format=csv`);
    expect(response.status).toBe(200);
    expect(parse(await response.text(), { columns: true })).toEqual(expected.slice(7));
    expect(aggregates.length).toBe(1);
  }, 60_000);
});

describe.runIf(testDatabaseKind() === 'postgres')('an aggregate export whose client leaves (PostgreSQL)', () => {
  it('has its statement cancelled at once, not run to its end', async () => {
    const watcher = new pg.Client({ connectionString: testPostgresUrl() });
    await watcher.connect();
    // This file's database only: other test files may be exporting on the same server meanwhile.
    const database = decodeURIComponent(new URL(app.db.connection.url!).pathname.slice(1));
    const running = async () =>
      (await watcher.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = $1 AND state <> 'idle' AND query LIKE 'FETCH % FROM stream_%'",
        [database],
      )).rows[0]!.n;
    try {
      // Costly enough to be seen running (the 7.5 s on the embedded database): rounds grouped by three investor fields.
      const slow = '/api/aggregate/transactions?metric=count&group_by=investors.name,investors.platform_url,investors.uuid&limit=1';
      const pageStarted = performance.now();
      expect((await auth.fetch(slow)).status).toBe(200);
      const runsFor = performance.now() - pageStarted;
      const controller = new AbortController();
      const started = performance.now();
      const response = auth.fetch(`${slow}&format=csv`, { signal: controller.signal }).catch(() => undefined);
      let seen = false;
      for (const until = Date.now() + 10_000; !seen && Date.now() < until; ) {
        seen = (await running()) > 0;
        if (!seen) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(seen, 'the export statement was seen running').toBe(true);
      controller.abort();
      const aborted = performance.now();
      await response;
      let left = 1;
      for (const until = Date.now() + 3_000; left > 0 && Date.now() < until; ) {
        left = await running();
        if (left) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const gone = performance.now() - aborted;
      console.info(`the aggregate runs ${Math.round(runsFor)} ms; its export, left ${Math.round(aborted - started)} ms after its start, stopped ${Math.round(gone)} ms later`);
      expect(left).toBe(0);
      // Stopped, not finished: well before the statement would have ended on its own.
      expect(gone).toBeLessThan(Math.max(runsFor - (aborted - started), 0) + 500);
    } finally {
      await watcher.end();
    }
  }, 60_000);
});
