// The filter, sort and fields parameters as people type them, over HTTP on both transports: values
// with spaces and padding, NULLs last in both sort directions (with cursors), close matches for typos.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../../src/data/import/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

const ENTITIES = [
  { id: 1, type: 'company', name: 'Acme', launch_year: 2015, hq_country: 'United States', hq_city: 'New York' },
  { id: 2, type: 'company', name: 'Borealis', launch_year: null, hq_country: 'Germany', hq_city: 'Berlin' },
  { id: 3, type: 'company', name: 'Cobalt', launch_year: 2021, hq_country: 'United States', hq_city: 'Austin' },
  { id: 4, type: 'company', name: 'Dynamo', launch_year: null, hq_country: 'United Kingdom', hq_city: 'London' },
  { id: 5, type: 'company', name: 'Ember', launch_year: 2020, hq_country: 'United States', hq_city: 'New York' },
  { id: 6, type: 'company', name: 'Fjord', launch_year: 2010, hq_country: 'Norway', hq_city: 'Oslo' },
];

let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  const dir = await mkdtemp(join(tmpdir(), 'vda-grammar-'));
  try {
    await writeFile(join(dir, 'entities.jsonl'), ENTITIES.map((entity) => JSON.stringify(entity)).join('\n'));
    await importDirectory(app.db, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  client = await createApiKeyAndToken(app);
}, 60_000);

afterAll(async () => {
  await app.close();
});

type Row = Record<string, unknown>;
interface ListBody {
  data: Row[];
  page: { next_cursor: string | null };
  error?: { code: string; message: string; details?: { path: string; message: string }[] };
}

async function get(path: string): Promise<{ status: number; body: ListBody }> {
  const response = await client.fetch(path);
  return { status: response.status, body: (await response.json()) as ListBody };
}

async function names(query: string): Promise<string[]> {
  const { status, body } = await get(`/api/entities?${query}`);
  expect(status, JSON.stringify(body.error)).toBe(200);
  return body.data.map((row) => row.name as string);
}

describe('values as typed', () => {
  it.each([
    ['hq_country:United States', ['Acme', 'Cobalt', 'Ember']],
    ['launch_year[gte]: 2020', ['Cobalt', 'Ember']],
    ['and(hq_city: New York , launch_year[lt]:2020 )', ['Acme']],
    ['hq_country[in_any]: United Kingdom | Norway', ['Dynamo', 'Fjord']],
    ['hq_country:"United States"', ['Acme', 'Cobalt', 'Ember']],
  ])('REST filter=%s', async (filter, expected) => {
    expect(await names(`filter=${encodeURIComponent(filter)}`)).toEqual(expected);
  });

  it('GraphQL reads the same grammar', async () => {
    const { body } = await client.graphql('query($f: String) { entities(filter: $f) { data { name } } }', {
      f: 'and(hq_country:United States, launch_year[gte]: 2020)',
    });
    expect(body.errors).toBeUndefined();
    expect((body.data!.entities as { data: Row[] }).data.map((row) => row.name)).toEqual(['Cobalt', 'Ember']);
  });

  it('a value with spaces that does not fit the field is a value error, not a syntax error', async () => {
    const { status, body } = await get(`/api/entities?filter=${encodeURIComponent('launch_year:20 20')}`);
    expect(status).toBe(400);
    expect(body.error?.code).toBe('FILTER_VALIDATION_ERROR');
    expect(body.error?.message).toContain("found '20 20'");
  });
});

describe('NULLs sort last in both directions', () => {
  it.each([
    ['sort=launch_year', ['Fjord', 'Acme', 'Ember', 'Cobalt', 'Borealis', 'Dynamo']],
    ['sort=-launch_year', ['Cobalt', 'Ember', 'Acme', 'Fjord', 'Borealis', 'Dynamo']],
  ])('%s', async (query, expected) => {
    expect(await names(query)).toEqual(expected);
  });

  it.each(['launch_year', '-launch_year'])('cursor pages of sort=%s follow the same order', async (sort) => {
    const whole = await names(`sort=${sort}`);
    const paged: string[] = [];
    let path = `/api/entities?limit=1&sort=${sort}`;
    for (let page = 0; page < 10; page += 1) {
      const { body } = await get(path);
      paged.push(...body.data.map((row) => row.name as string));
      if (!body.page.next_cursor) break;
      path = `/api/entities?limit=1&sort=${sort}&cursor=${encodeURIComponent(body.page.next_cursor)}`;
    }
    expect(paged).toEqual(whole);
  });

  it('GraphQL orders alike', async () => {
    const { body } = await client.graphql('{ entities(sort: "-launch_year") { data { name } } }');
    expect((body.data!.entities as { data: Row[] }).data.map((row) => row.name)).toEqual(await names('sort=-launch_year'));
  });
});

describe('close matches for sort and fields typos', () => {
  it.each([
    ['sort=-launch_yeer', 'query.sort', "cannot sort by 'launch_yeer'; close matches: launch_year"],
    ['sort=nam', 'query.sort', "cannot sort by 'nam'; close matches: name"],
    ['fields=id,hq_citty', 'query.fields', 'unknown field(s): hq_citty; close matches: hq_city'],
    ['fields=hq_cuntry', 'query.fields', 'unknown field(s): hq_cuntry; close matches: hq_country'],
  ])('%s', async (query, path, message) => {
    const { status, body } = await get(`/api/entities?${query}`);
    expect(status).toBe(400);
    expect(body.error?.code).toBe('VALIDATION_ERROR');
    expect(body.error?.details).toEqual([{ path, message }]);
  });

  it('lists every choice when nothing is close', async () => {
    const { body } = await get('/api/entities?sort=zzzzzzzz');
    expect(body.error?.details?.[0]?.message).toMatch(/^cannot sort by 'zzzzzzzz'; sortable fields: id, uuid, type, /);
  });

  it('GraphQL gives the same sort message', async () => {
    // A field error: 200, the error with its code and details (docs/graphql-errors.md).
    const { status, body } = await client.graphql('{ entities(sort: "launch_yeer") { data { id } } }');
    expect(status).toBe(200);
    expect(body.errors?.[0]?.extensions?.details).toEqual([
      { path: 'sort', message: "cannot sort by 'launch_yeer'; close matches: launch_year" },
    ]);
  });
});
