// The list fan-out cost: a document is refused before any resolver runs when its lists, multiplied
// through, could read more records than GRAPHQL_MAX_FAN_OUT allows; what is accepted finishes quickly.
import { getOperationAST, parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { loadConfig } from '../../src/config.ts';
import { fanOutCost, RELATION_FAN_OUT } from '../../src/graphql/fan-out-cost.ts';

const MAX_FAN_OUT_COST = loadConfig({}).GRAPHQL_MAX_FAN_OUT;
import { getSchema } from '../../src/api-schema.ts';
import { loadOperations } from '../../src/rest/operations.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, GRAPHQL_RESPONSE, type TestCredentials } from '../helpers/auth.ts';

function costOf(query: string, variables?: Record<string, unknown>): number {
  const document = parse(query);
  return fanOutCost(getSchema(), document, getOperationAST(document)!, variables);
}

describe('the cost of a document', () => {
  it('multiplies nested lists by the page limit and each relation fan-out', () => {
    const portfolio = RELATION_FAN_OUT['Investor.portfolio']!;
    const investors = RELATION_FAN_OUT['Entity.investors']!;
    expect(costOf('{ investors(limit: 3) { data { name } } }')).toBe(3);
    expect(costOf('{ investors(limit: 3) { data { portfolio { name } } } }')).toBe(3 + 3 * portfolio);
    expect(costOf('{ investors(limit: 3) { data { portfolio { investors { name } } } } }')).toBe(
      3 + 3 * portfolio + 3 * portfolio * investors,
    );
    // Without `limit`, the default page of 25.
    expect(costOf('{ entities { data { name } } }')).toBe(25);
    // A plain list with a limit counts that many.
    expect(costOf('{ locations(q: "Ber", limit: 7) { name } }')).toBe(7);
  });

  it('reads the limit from variables and follows fragments', () => {
    const query = 'query($n: Int) { entities(limit: $n) { data { ...F } } } fragment F on Entity { tags { name } }';
    const tags = RELATION_FAN_OUT['Entity.tags']!;
    expect(costOf(query, { n: 4 })).toBe(4 + 4 * tags);
    expect(costOf(query, {})).toBe(25 + 25 * tags);
  });

  it('lets a REST-sized page through: 500 entities with tags and founders, as GET /api/entities?limit=500', () => {
    const listOnly = print(loadOperations(getSchema()).get('ListEntities')!);
    expect(listOnly).toMatch(/query ListEntities/);
    expect(costOf(listOnly, { limit: 500, withTotal: true })).toBeLessThanOrEqual(MAX_FAN_OUT_COST);
    expect(costOf(listOnly, { limit: 500, withTotal: true })).toBeGreaterThan(500);
  });
});

describe('over HTTP', () => {
  const statements: string[] = [];
  let app: TestApp;
  let client: TestCredentials;

  beforeAll(async () => {
    app = await startTestApp({ onQuery: (sql) => statements.push(sql) });
    await seedDatabase(app.db, { entities: 200 });
    client = await createApiKeyAndToken(app);
  }, 120_000);

  afterAll(async () => {
    await app.close();
  });

  const dataStatements = () => statements.filter((sql) => !/api_keys|signing_keys/.test(sql));

  it('refuses a depth-8 query with limit: 1 through portfolios before reading anything', async () => {
    const query =
      '{ investors(limit: 1) { data { portfolio { investors { portfolio { investors { portfolio { name } } } } } } } }';
    statements.length = 0;
    const started = performance.now();
    const { status, body } = await client.graphql(query, undefined, { accept: GRAPHQL_RESPONSE });
    expect(performance.now() - started).toBeLessThan(1_000);
    // A request error: 400, and 200 to a client accepting only application/json (docs/graphql-errors.md).
    expect(status).toBe(400);
    expect((await client.graphql(query, undefined, { accept: 'application/json' })).status).toBe(200);
    expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(body.errors?.[0]?.message).toMatch(/fan-out cost \d+ is over the limit of 25000/);
    expect(dataStatements()).toEqual([]);
  });

  it('refuses a page limit given as a variable when it multiplies too far, and accepts a small one', async () => {
    const query = 'query($n: Int) { entities(limit: $n) { data { news { entities { entity { name } } } } } }';
    expect((await client.graphql(query, { n: 500 }, { accept: GRAPHQL_RESPONSE })).status).toBe(400);
    const small = await client.graphql(query, { n: 2 });
    expect(small.status).toBe(200);
    expect(small.body.errors).toBeUndefined();
  });

  it('answers a depth-8 query with limit: 1 through founders and companies quickly', async () => {
    const query =
      '{ entities(limit: 1) { data { founders { companies { entity { founders { companies { entity { name } } } } } } } } }';
    const started = performance.now();
    const { status, body } = await client.graphql(query);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });
});
