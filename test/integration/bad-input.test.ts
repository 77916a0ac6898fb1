// Inputs that once reached the database or the framework unchecked and answered 500: each must be a
// 400 (or a 404 where the id is well-formed) in the error envelope, and change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, GRAPHQL_RESPONSE, TEST_USER_AGENT, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 20 });
  auth = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

async function expectError(response: Response, status: number, code: string): Promise<{ error: { details?: { path: string }[] } }> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  const body = JSON.parse(text);
  expect(body.error.code).toBe(code);
  return body;
}

describe('REST parameters beyond 32 bits', () => {
  it.each(['limit=2147483648', 'offset=2147483648', 'limit=999999999999999', 'offset=999999999999999', 'offset=-999999999999999'])(
    '%s is 400 on the parameter',
    async (query) => {
      const body = await expectError(await auth.fetch(`/api/entities?${query}`), 400, 'VALIDATION_ERROR');
      expect(body.error.details?.[0]?.path).toBe(`query.${query.split('=')[0]}`);
    },
  );

  it('a page parameter beyond 32 bits on a management list is 400 too', async () => {
    await expectError(await auth.fetch('/api/api-keys?offset=2147483648'), 400, 'VALIDATION_ERROR');
  });
});

describe('GraphQL variables of the wrong type', () => {
  it.each([
    ['a string for Int', 'query($l: Int) { entities(limit: $l) { data { id } } }', { l: 'many' }],
    ['an Int beyond 32 bits', 'query($l: Int) { entities(limit: $l) { data { id } } }', { l: 2 ** 31 }],
    ['an object for String', 'query($f: String) { entities(filter: $f) { data { id } } }', { f: { a: 1 } }],
    ['a missing required variable', 'query($id: Int!) { entity(id: $id) { id } }', {}],
  ])('%s is a VALIDATION_ERROR request error (400, 200 as application/json)', async (_name, query, variables) => {
    const { status, body } = await auth.graphql(query, variables, { accept: GRAPHQL_RESPONSE });
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(body.data).toBeUndefined();
    const asJson = await auth.graphql(query, variables, { accept: 'application/json' });
    expect(asJson.status).toBe(200);
    expect(asJson.body).toEqual(body);
  });
});

describe('paths', () => {
  it.each(['/api/entities/%ZZ', '/api/entities/%E0%A4%A', '/api/ecosystems/%FF', '/api/landscapes/%ZZ'])(
    'a malformed escape in a path parameter, %s, is 400',
    async (path) => {
      const body = await expectError(await auth.fetch(path), 400, 'VALIDATION_ERROR');
      expect(body.error.details?.[0]?.path).toMatch(/^path\./);
    },
  );

  it('a malformed escape where no endpoint is, is 404, and nothing is logged as an error', async () => {
    await expectError(await auth.fetch('/api/%'), 404, 'NOT_FOUND');
    await expectError(await app.fetch('/nothing/%ZZ'), 404, 'NOT_FOUND');
    expect(app.logs.join('')).not.toMatch(/URIError|"level":50/);
  });
});

describe('NUL characters', () => {
  it('in client_id at the token endpoint is 400 invalid_request', async () => {
    const response = await app.fetch('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=abc%00def&client_secret=x',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_request');
  });

  it('in an API key name is 400 on body.name, and no key is made', async () => {
    const before = await app.db.prisma.apiKey.count();
    const response = await auth.fetch('/api/api-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a\u0000b', permissions: ['read:entities'] }),
    });
    const body = await expectError(response, 400, 'VALIDATION_ERROR');
    expect(body.error.details?.map((detail) => detail.path)).toEqual(['body.name']);
    expect(await app.db.prisma.apiKey.count()).toBe(before);
  });

  it.each([
    ['a filter value', '/api/entities?filter=name:a%00b'],
    ['a sort', '/api/entities?sort=name%00'],
    ['a cursor', '/api/entities?cursor=%00'],
    ['a location look-up', '/api/filters/location/values?q=a%00'],
  ])('in %s is 400', async (_name, path) => {
    const response = await auth.fetch(path);
    expect(response.status).toBe(400);
  });

  it('in a GraphQL variable is 400', async () => {
    const { status } = await auth.graphql('query($f: String) { entities(filter: $f) { data { id } } }', { f: 'name:a\u0000' });
    expect(status).toBe(400);
  });

  it('in a management body or path is 400', async () => {
    const created = await auth.fetch('/api/teams', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'nul\u0000team', slug: 'nul' }),
    });
    await expectError(created, 400, 'VALIDATION_ERROR');
    expect((await auth.fetch('/api/teams/1/members/a%00b', { method: 'DELETE' })).status).toBe(400);
  });
});

describe('dates at the edge of the calendar', () => {
  it.each(['created_at[gte]:0001-01-01T00:00+23:59', 'created_at[lt]:9999-12-31T23:59-23:59', 'created_at[gte]:0000-01-01'])(
    '%s is FILTER_VALIDATION_ERROR',
    async (filter) => {
      await expectError(await auth.fetch(`/api/entities?filter=${encodeURIComponent(filter)}`), 400, 'FILTER_VALIDATION_ERROR');
    },
  );
});

describe('forged cursors', () => {
  async function cursorFor(query: string): Promise<string> {
    const body = await (await auth.fetch(`/api/entities?${query}&limit=1`)).json();
    return body.page.next_cursor;
  }

  function forge(cursor: string, change: (payload: { v: unknown[] }) => void): string {
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    change(payload);
    return Buffer.from(JSON.stringify(payload)).toString('base64url');
  }

  it.each([
    ['an object for an id', (payload: { v: unknown[] }) => { payload.v[0] = { gt: 0 }; }],
    ['a field reference', (payload: { v: unknown[] }) => { payload.v[0] = { _ref: 'launch_year', _container: 'Entity' }; }],
    ['a string for an id', (payload: { v: unknown[] }) => { payload.v[0] = '5'; }],
    ['a fraction for an id', (payload: { v: unknown[] }) => { payload.v[0] = 1.5; }],
    ['an id beyond 32 bits', (payload: { v: unknown[] }) => { payload.v[0] = 2 ** 40; }],
    ['an array', (payload: { v: unknown[] }) => { payload.v[0] = [1]; }],
  ])('with %s is 400 on query.cursor', async (_name, change) => {
    const forged = forge(await cursorFor('sort=id'), change);
    const body = await expectError(await auth.fetch(`/api/entities?cursor=${forged}`), 400, 'VALIDATION_ERROR');
    expect(body.error.details?.[0]?.path).toBe('query.cursor');
  });

  it('with a number where a date belongs, or a bad date, is 400', async () => {
    const cursor = await cursorFor('sort=created_at');
    for (const value of [12, 'yesterday', { $date: 1 }]) {
      const forged = forge(cursor, (payload) => { payload.v[0] = value; });
      await expectError(await auth.fetch(`/api/entities?sort=created_at&cursor=${forged}`), 400, 'VALIDATION_ERROR');
    }
  });

  it('says what differs when reused with another sort or filter', async () => {
    const cursor = await cursorFor('sort=-launch_year');
    const sort = await expectError(await auth.fetch(`/api/entities?sort=name&cursor=${cursor}`), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(sort)).toContain('-launch_year');
    const filtered = await expectError(
      await auth.fetch(`/api/entities?sort=-launch_year&filter=is_company:true&cursor=${cursor}`),
      400,
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(filtered)).toMatch(/filter/);
  });
});

describe('/graphql bodies', () => {
  it.each([
    ['text/plain', '{ __typename }'],
    ['application/x-www-form-urlencoded', 'query=%7B__typename%7D'],
  ])('a %s POST answers in the error envelope', async (type, body) => {
    const response = await app.fetch('/graphql', {
      method: 'POST',
      headers: { ...auth.headers, 'content-type': type },
      body,
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const text = await response.text();
    expect(text.length).toBeGreaterThan(0);
    const parsed = JSON.parse(text);
    expect(parsed.errors?.[0]?.extensions?.code ?? parsed.error?.code).toBe('VALIDATION_ERROR');
  });
});

it('leaves the server ready after all of it', async () => {
  expect((await app.fetch('/readyz')).status).toBe(200);
  expect((await fetch(`${app.url}/api/entities?limit=1`, { headers: { ...auth.headers, 'User-Agent': TEST_USER_AGENT } })).status).toBe(200);
});
