// CSV export of lists over HTTP: `format=csv` or `Accept: text/csv`, the list's filters and fields,
// every page followed through the cursor, streamed; errors before the first row stay JSON. The whole
// demo data set under the default rate limits, and exports that fail midway: csv-export-demo.test.ts.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 60 });
  auth = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => {
  await app.close();
});

/** Every record of a list as JSON, following the cursor (the reference the CSV must equal). */
async function allJson(path: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const response = await auth.fetch(`${path}${separator}limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Record<string, unknown>[]; page: { next_cursor: string | null } };
    rows.push(...body.data);
    cursor = body.page.next_cursor;
  } while (cursor);
  return rows;
}

const parseCsv = (text: string): Record<string, string>[] => parse(text, { columns: true }) as Record<string, string>[];

describe('CSV export', () => {
  it('of the changes feed follows it with since= to its head, page after page', async () => {
    // The reference: the JSON feed, followed as docs/changes.md says (a short page reached the head).
    const expected: string[] = [];
    for (let since = ''; ; ) {
      const response = await auth.fetch(`/api/changes?limit=500${since}`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: { id: string }[]; page: { next_cursor: string } };
      expected.push(...page.data.map((change) => change.id));
      if (page.data.length < 500) break;
      since = `&since=${encodeURIComponent(page.page.next_cursor)}`;
    }
    expect(expected.length).toBeGreaterThan(50);
    const response = await auth.fetch('/api/changes?format=csv&limit=7');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="changes.csv"');
    const rows = parseCsv(await response.text());
    expect(rows.map((row) => row.id)).toEqual(expected);
    expect(Object.keys(rows[0]!)).toEqual(['id', 'type', 'object_id', 'occurred_at', 'changed_fields']);
  });

  it('format=csv streams every row of the list, following the cursor page after page', async () => {
    const expected = await allJson('/api/entities?sort=name');
    expect(expected.length).toBeGreaterThan(50);
    // limit=7 is the page size: the export needs many pages and must walk them all.
    const response = await auth.fetch('/api/entities?format=csv&sort=name&limit=7');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="entities.csv"');
    expect(response.headers.get('content-length')).toBeNull();
    const rows = parseCsv(await response.text());
    expect(rows.map((row) => Number(row.id))).toEqual(expected.map((row) => row.id));
    expect(Object.keys(rows[0]!)).toEqual(Object.keys(expected[0]!));
    // Scalars as text, nested values as JSON, null empty.
    const withTags = expected.findIndex((row) => Array.isArray(row.tags) && row.tags.length > 0);
    expect(withTags).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(rows[withTags]!.tags!)).toEqual(expected[withTags]!.tags);
    expect(rows[0]!.name).toBe(expected[0]!.name);
    const noYear = expected.findIndex((row) => row.launch_year === null);
    if (noYear >= 0) expect(rows[noYear]!.launch_year).toBe('');
  });

  it('ends at the last row when the page size divides the total (the last page is full)', async () => {
    const expected = await allJson('/api/entities?fields=id');
    const count = expected.length;
    // One full page, and (unless the count is prime) several.
    const sizes = [count, ...[2, 3, 5, 7].filter((divisor) => count % divisor === 0).map((divisor) => count / divisor).slice(0, 1)];
    for (const limit of sizes) {
      const rows = parseCsv(await (await auth.fetch(`/api/entities?format=csv&fields=id&limit=${limit}`)).text());
      expect(rows.map((row) => Number(row.id)), `limit=${limit}`).toEqual(expected.map((row) => row.id));
    }
  });

  it('Accept: text/csv does the same, with the same filters and fields', async () => {
    const expected = await allJson('/api/entities?filter=type:company&fields=id,name,type');
    const response = await auth.fetch('/api/entities?filter=type:company&fields=id,name,type', { headers: { accept: 'text/csv' } });
    expect(response.status).toBe(200);
    const rows = parseCsv(await response.text());
    expect(rows).toEqual(expected.map((row) => ({ id: String(row.id), name: row.name, type: 'company' })));
  });

  it('works for other lists too', async () => {
    const expected = await allJson('/api/transactions');
    const rows = parseCsv(await (await auth.fetch('/api/transactions?format=csv')).text());
    expect(rows.length).toBe(expected.length);
    expect(rows.map((row) => Number(row.id))).toEqual(expected.map((row) => row.id));
  });

  it('an empty result is a header row', async () => {
    const text = await (await auth.fetch('/api/entities?format=csv&fields=id,name&filter=name:"No such company 42"')).text();
    expect(text.trim()).toBe('id,name');
  });

  it('answers JSON errors before the first row: bad filter, bad format, not a list, no token', async () => {
    const badFilter = await auth.fetch('/api/entities?format=csv&filter=nope:1');
    expect(badFilter.status).toBe(400);
    expect(badFilter.headers.get('content-type')).toMatch(/application\/json/);
    const badFormat = await auth.fetch('/api/entities?format=xml');
    expect(badFormat.status).toBe(400);
    expect(((await badFormat.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe('query.format');
    const id = (await allJson('/api/entities'))[0]!.id;
    const record = await auth.fetch(`/api/entities/${id}?format=csv`);
    expect(record.status).toBe(400);
    expect(((await record.json()) as { error: { message: string } }).error.message).toMatch(/not a list/);
    const anonymous = await app.fetch('/api/entities?format=csv');
    expect(anonymous.status).toBe(400);
    expect(anonymous.headers.get('content-type')).toMatch(/application\/json/);
  });

  it('JSON stays the default for */* and for browsers', async () => {
    for (const accept of ['*/*', 'text/html,application/xhtml+xml,*/*;q=0.8']) {
      const response = await auth.fetch('/api/entities?limit=1', { headers: { accept } });
      expect(response.headers.get('content-type'), accept).toMatch(/application\/json/);
    }
  });
});

describe('CSV in the OpenAPI document', () => {
  it('lists declare text/csv and the format parameter; records do not', async () => {
    const doc = (await (await app.fetch('/openapi.json')).json()) as {
      paths: Record<string, { get: { parameters: { name?: string }[]; responses: Record<string, { content?: Record<string, unknown> }> } }>;
    };
    const list = doc.paths['/api/entities']!.get;
    expect(Object.keys(list.responses['200']!.content!)).toEqual(['application/json', 'text/csv']);
    expect(list.parameters.map((parameter) => parameter.name)).toContain('format');
    const record = doc.paths['/api/entities/{id}']!.get;
    expect(Object.keys(record.responses['200']!.content!)).toEqual(['application/json']);
  });
});
