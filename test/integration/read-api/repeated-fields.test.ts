// `fields` given several times (`?fields=name&fields=launch_year`, as openapi-fetch and other generated
// clients send a list) is one list of fields, on JSON and CSV, on lists and records, through express
// and the direct path alike; a bad name in any of them is the usual 400, never ignored.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 5 });
  auth = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

const json = async (path: string, init?: RequestInit) => {
  const response = await auth.fetch(path, init);
  return { status: response.status, body: (await response.json()) as { data: unknown; error?: { code: string; details: { path: string; message: string }[] } } };
};

it.each([
  ['plain', {}],
  // A conditional request that matches nothing is answered in full, the same.
  ['conditional', { 'if-none-match': '"matches-nothing"' }],
])('a repeated fields on a list is the same as the comma-separated one (%s)', async (_path, headers) => {
  const repeated = await json('/api/entities?fields=name&fields=launch_year&limit=3', { headers });
  const comma = await json('/api/entities?fields=name,launch_year&limit=3', { headers });
  expect(repeated.status).toBe(200);
  expect(repeated.body).toEqual(comma.body);
  expect(Object.keys((repeated.body.data as object[])[0]!).sort()).toEqual(['id', 'launch_year', 'name']);
});

it('a repeated fields on a record trims it the same way', async () => {
  const { body } = await json('/api/entities?limit=1&fields=id');
  const id = (body.data as { id: number }[])[0]!.id;
  const record = await json(`/api/entities/${id}?fields=name&fields=hq_country,launch_year`);
  expect(Object.keys(record.body.data as object).sort()).toEqual(['hq_country', 'id', 'launch_year', 'name']);
});

it('a misspelt name in any repetition is 400 on query.fields', async () => {
  const { status, body } = await json('/api/entities?fields=name&fields=nmae');
  expect(status).toBe(400);
  expect(body.error?.code).toBe('VALIDATION_ERROR');
  expect(body.error?.details).toEqual([{ path: 'query.fields', message: expect.stringMatching(/unknown field\(s\): nmae;/) }]);
});

it('CSV takes the repeated form too, for its columns and for an empty result', async () => {
  const csv = await (await auth.fetch('/api/entities?format=csv&fields=name&fields=launch_year&limit=2')).text();
  const [header, ...rows] = parse(csv) as string[][];
  expect(header).toEqual(['id', 'name', 'launch_year']);
  expect(rows.length).toBe(5);
  const empty = await (await auth.fetch('/api/entities?format=csv&filter=id:0&fields=name&fields=launch_year')).text();
  expect(parse(empty)).toEqual([['id', 'name', 'launch_year']]);
  expect((await auth.fetch('/api/entities?format=csv&fields=name&fields=nmae')).status).toBe(400);
});
