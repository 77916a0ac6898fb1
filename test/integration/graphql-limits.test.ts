// Bad or abusive GraphQL documents are refused during validation, as VALIDATION_ERROR request errors
// (400, or 200 to a client accepting only application/json, as GraphQL over HTTP asks), before any
// resolver runs: no SQL statement reaches the database.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/use-armor.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, GRAPHQL_RESPONSE, type TestCredentials } from '../helpers/auth.ts';

const statements: string[] = [];
let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ onQuery: (sql) => statements.push(sql) });
  client = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

/** `entities { data { founders { companies { entity { founders { ... name } } } } } }` nested `levels` times. */
function deepQuery(levels: number): string {
  let inner = 'name';
  for (let level = 0; level < levels; level += 1) inner = `founders { companies { entity { ${inner} } } }`;
  return `{ entities(limit: 1) { data { ${inner} } } }`;
}

const aliases = (count: number) =>
  `{ ${Array.from({ length: count }, (_, index) => `a${index}: entities(limit: 1) { data { id } }`).join(' ')} }`;

it.each([
  ['an unknown field', '{ entities { nope } }', /Cannot query field "nope"/],
  ['a syntax error', '{ entities(', /Syntax Error/],
  ['a wrong argument type', '{ entities(limit: "ten") { data { id } } }', /Int cannot represent/],
  [`nesting deeper than ${GRAPHQL_LIMITS.depth}`, deepQuery(4), /depth limit of 10/],
  [`more than ${GRAPHQL_LIMITS.aliases} aliases`, aliases(GRAPHQL_LIMITS.aliases + 1), /Aliases limit of 15/],
  ['a huge document', `{ entities { data { ${'id '.repeat(GRAPHQL_LIMITS.tokens)} } } }`, /Token limit/i],
])('refuses %s with 400 VALIDATION_ERROR and no database work', async (_name, query, message) => {
  statements.length = 0;
  const { status, body } = await client.graphql(query, undefined, { accept: GRAPHQL_RESPONSE });
  expect(status).toBe(400);
  expect(body.data ?? undefined).toBeUndefined();
  expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  expect(body.errors?.[0]?.message).toMatch(message);
  const asJson = await client.graphql(query, undefined, { accept: 'application/json' });
  expect(asJson.status).toBe(200);
  expect(asJson.body).toEqual(body);
  const dataStatements = statements.filter((sql) => !/api_keys|signing_keys/.test(sql));
  expect(dataStatements).toEqual([]);
});

it('accepts a document just inside the limits', async () => {
  const { status, body } = await client.graphql(aliases(GRAPHQL_LIMITS.aliases));
  expect(status).toBe(200);
  expect(body.errors).toBeUndefined();
  expect((await client.graphql(deepQuery(2))).body.errors).toBeUndefined();
});
