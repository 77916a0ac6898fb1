// GraphiQL's first minute, over HTTP: the schema loads without a token (pure introspection only),
// with GraphiQL's placeholder headers too, and the page says where the token goes.
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

const PLACEHOLDER_HEADERS = { Authorization: 'Bearer <access token>', 'X-Client-Id': '<client id>' };

function post(query: string, headers: Record<string, string> = {}): Promise<Response> {
  return app.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
}

describe('introspection without a token', () => {
  it('answers GraphiQL\'s full introspection query with no headers at all', async () => {
    const response = await post(getIntrospectionQuery());
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { __schema: { queryType: { name: string }; types: { name: string }[] } } };
    expect(body.data.__schema.queryType.name).toBe('Query');
    expect(body.data.__schema.types.map((type) => type.name)).toContain('Entity');
  });

  it('answers it with GraphiQL\'s placeholder headers, as the page sends them before a token is pasted', async () => {
    const response = await post(getIntrospectionQuery(), PLACEHOLDER_HEADERS);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: object }).data).toHaveProperty('__schema');
  });

  it('answers __type queries, through fragments too', async () => {
    const response = await post('query { ...F } fragment F on Query { __type(name: "Entity") { name } __typename }');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { __type: { name: 'Entity' }, __typename: 'Query' } });
  });

  it('still needs a token for anything that is not pure introspection', async () => {
    const refused = [
      '{ __schema { queryType { name } } entities(limit: 1) { data { id } } }',
      'query { ...F } fragment F on Query { entities(limit: 1) { data { id } } }',
      '{ __typename }',
      'mutation { __typename }',
      '{ __schema { queryType { name } } } mutation M { __typename }',
      '{ __schema { queryType { name } ',
    ];
    for (const query of refused) {
      const response = await post(query);
      expect(response.status, query).not.toBe(200);
      const body = (await response.json()) as { data?: unknown; errors: { message: string }[] };
      expect(body.data ?? null, query).toBeNull();
      expect(body.errors[0]!.message, query).toMatch(/Authorization header/);
    }
  });
});

describe('the GraphiQL page', () => {
  it('tells a newcomer where to paste the token, and that the docs need none', async () => {
    const html = await (await app.fetch('/graphql', { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('paste your access token into the Headers tab');
    expect(html).toContain('Docs panel');
    expect(html).toContain('Bearer \\u003caccess token>');
  });
});
