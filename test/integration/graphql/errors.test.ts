// What a GraphQL client sees of each kind of error (docs/graphql-errors.md): field errors are 200 with
// the other fields' data, `path`, `locations` and `extensions.code`, whether the read is compiled or
// served by the resolvers; request errors follow GraphQL over HTTP for both media types; /graphql never
// answers in the REST envelope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, GRAPHQL_RESPONSE, type GraphQLBody, type TestCredentials } from '../../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
const servers: Record<'compiled' | 'resolvers', { app: TestApp; auth: TestCredentials }> = {} as never;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 10 });
  for (const [name, env] of [['compiled', {}], ['resolvers', { COMPILED_READS: 'false' }]] as const) {
    const app = await startTestApp({ db, env });
    servers[name] = { app, auth: await createApiKeyAndToken(app) };
  }
}, 120_000);

afterAll(async () => {
  for (const server of Object.values(servers)) await server.app.close();
  await db?.destroy();
});

const MEDIA_TYPES = ['application/json', GRAPHQL_RESPONSE];

/** A GraphQL answer: status, media type and parsed body, after checking it is not the REST envelope. */
async function answer(response: Response): Promise<{ status: number; type: string; body: GraphQLBody }> {
  const body = (await response.json()) as GraphQLBody & { error?: unknown };
  expect(body.error).toBeUndefined();
  return { status: response.status, type: response.headers.get('content-type') ?? '', body };
}

describe.each(['compiled', 'resolvers'] as const)('field errors, reads %s', (name) => {
  const query = `{
  a: entities(limit: 1) { data { id } }
  b: entities(filter: "nmae:x") { data { id } }
  c: entities(limit: 0) { data { id } }
}`;

  it.each(MEDIA_TYPES)('keep the other fields\' data, with path, locations and code (%s)', async (accept) => {
    const { status, type, body } = await answer(
      await servers[name].auth.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify({ query }) }),
    );
    expect(status).toBe(200);
    expect(type).toBe(`${accept}; charset=utf-8`);
    expect(body.data).toEqual({ a: { data: [{ id: expect.any(Number) }] }, b: null, c: null });
    expect(body.errors).toEqual([
      {
        message: expect.stringMatching(/nmae/),
        path: ['b'],
        locations: [{ line: 3, column: 3 }],
        extensions: { code: 'UNKNOWN_FILTER', details: [{ path: 'filter', message: expect.stringMatching(/nmae/) }] },
      },
      {
        message: expect.stringMatching(/limit/),
        path: ['c'],
        locations: [{ line: 4, column: 3 }],
        extensions: { code: 'VALIDATION_ERROR', details: [{ path: 'limit', message: expect.any(String) }] },
      },
    ]);
  });

  it('answer exactly as the other way of reading does', async () => {
    const mine = await servers[name].auth.graphql(query);
    const other = await servers[name === 'compiled' ? 'resolvers' : 'compiled'].auth.graphql(query);
    expect(mine).toEqual(other);
  });
});

describe('request errors', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    servers.compiled.auth.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it.each([
    ['a syntax error', { query: '{ entities(' }],
    ['an unknown field', { query: '{ entities { nope } }' }],
    ['a variable of the wrong type', { query: 'query($l: Int) { entities(limit: $l) { data { id } } }', variables: { l: 'many' } }],
  ])('%s is 400 as application/graphql-response+json, 200 as application/json, without data', async (_name, request) => {
    const strict = await answer(await post(JSON.stringify(request), { accept: GRAPHQL_RESPONSE }));
    expect(strict).toMatchObject({ status: 400, type: `${GRAPHQL_RESPONSE}; charset=utf-8` });
    expect(strict.body.data).toBeUndefined();
    expect(strict.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(strict.body.errors?.[0]?.locations?.[0]).toEqual({ line: 1, column: expect.any(Number) });
    const legacy = await answer(await post(JSON.stringify(request), { accept: 'application/json' }));
    expect(legacy).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: strict.body });
  });

  it.each(MEDIA_TYPES)('a body GraphQL cannot read is a GraphQL error with its status, never the envelope (%s)', async (accept) => {
    const cases: [string, Record<string, string>, number, string][] = [
      ['{"query": "{ __typename }"', {}, 400, 'VALIDATION_ERROR'],
      ['query={__typename}', { 'content-type': 'application/x-www-form-urlencoded' }, 400, 'VALIDATION_ERROR'],
      [JSON.stringify({ query: `{ __typename } #${'x'.repeat(1024 * 1024)}` }), {}, 413, 'PAYLOAD_TOO_LARGE'],
      [JSON.stringify({ query: '{ __typename }', variables: { v: 'a\u0000b' } }), {}, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, headers, status, code] of cases) {
      const refused = await answer(await post(body, { accept, ...headers }));
      expect(refused).toMatchObject({ status, type: `${accept}; charset=utf-8` });
      expect(refused.body).toEqual({ errors: [{ message: expect.any(String), extensions: expect.objectContaining({ code }) }] });
    }
  });

  it.each(MEDIA_TYPES)('malformed parameters are 400 VALIDATION_ERROR for both media types (%s)', async (accept) => {
    const cases: [string, RegExp][] = [
      [JSON.stringify([{ query: '{ __typename }' }]), /object/],
      [JSON.stringify({ query: '{ __typename }', variable: {} }), /Unexpected parameter "variable"/],
      [JSON.stringify({ variables: {} }), /Missing query/],
      [JSON.stringify({ query: 42 }), /Invalid query/],
      [JSON.stringify({ query: '{ __typename }', variables: [1] }), /Invalid variables/],
      [JSON.stringify({ query: 'query A { __typename } query B { __typename }' }), /operation name/],
    ];
    for (const [body, message] of cases) {
      const refused = await answer(await post(body, { accept }));
      expect(refused).toMatchObject({ status: 400, type: `${accept}; charset=utf-8` });
      expect(refused.body).toEqual({ errors: [{ message: expect.stringMatching(message), extensions: { code: 'VALIDATION_ERROR' } }] });
    }
  });

  it('a client that reads neither media type is 406 with what it could read', async () => {
    const response = await post(JSON.stringify({ query: '{ __typename }' }), { accept: 'text/plain' });
    expect(response.status).toBe(406);
    expect(response.headers.get('accept')).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8, application/json; charset=utf-8`);
  });

  it('a missing header, a bad token and a missing permission keep their statuses, as GraphQL errors', async () => {
    const { auth, app } = servers.compiled;
    const query = JSON.stringify({ query: '{ entities(limit: 1) { data { id } } }' });
    const noAgent = await answer(await auth.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': '' }, body: query }));
    expect(noAgent).toMatchObject({ status: 400, body: { errors: [{ extensions: { code: 'VALIDATION_ERROR' } }] } });
    const badToken = await auth.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: query });
    expect(badToken.headers.get('www-authenticate')).toMatch(/invalid_token/);
    expect(await answer(badToken)).toMatchObject({ status: 401, body: { errors: [{ extensions: { code: 'UNAUTHORIZED' } }] } });
    const reader = await createApiKeyAndToken(app, { permissions: ['read:news'] });
    expect(await answer(await reader.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: query }))).toMatchObject({
      status: 403,
      body: { errors: [{ extensions: { code: 'FORBIDDEN' } }] },
    });
  });

  it('a mutation sent by GET is 405 METHOD_NOT_ALLOWED with Allow: POST, and changes nothing', async () => {
    const before = await db.prisma.team.count();
    const mutation = encodeURIComponent('mutation { createTeam(name: "t", slug: "by-get") { id } }');
    const response = await servers.compiled.auth.fetch(`/graphql?query=${mutation}`, { headers: { accept: 'application/json' } });
    expect(response.headers.get('allow')).toBe('POST');
    expect(await answer(response)).toMatchObject({ status: 405, body: { errors: [{ extensions: { code: 'METHOD_NOT_ALLOWED' } }] } });
    expect(await db.prisma.team.count()).toBe(before);
  });

  it('another method than GET and POST is 405 METHOD_NOT_ALLOWED with Allow, as a GraphQL error', async () => {
    const response = await servers.compiled.auth.fetch('/graphql', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(await answer(response)).toMatchObject({ status: 405, body: { errors: [{ extensions: { code: 'METHOD_NOT_ALLOWED' } }] } });
  });
});

it('names the format of each custom scalar with @specifiedBy', async () => {
  const { body } = await servers.compiled.auth.graphql('{ __schema { types { name specifiedByURL } } }');
  const types = (body.data?.__schema as { types: { name: string; specifiedByURL: string | null }[] }).types;
  const urls = Object.fromEntries(types.filter((type) => ['DateTime', 'Date', 'Money', 'JSON'].includes(type.name)).map((type) => [type.name, type.specifiedByURL]));
  expect(urls).toEqual({
    DateTime: expect.stringMatching(/^https:\/\//),
    Date: expect.stringMatching(/^https:\/\//),
    Money: expect.stringMatching(/^https:\/\//),
    JSON: expect.stringMatching(/^https:\/\//),
  });
});
