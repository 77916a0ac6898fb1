// The list fan-out cost: a document is refused before any resolver runs when its lists, multiplied
// through, could read more records than GRAPHQL_MAX_FAN_OUT allows; what is accepted finishes quickly.
import { getNamedType, getOperationAST, isObjectType, parse, print, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { loadConfig } from '../../src/config.ts';
import { fanOutCost, RELATION_FAN_OUT } from '../../src/graphql/fan-out-cost.ts';
import { batchRecords } from '../../src/graphql/work-charges.ts';
import { SIMILAR_SEARCH_CHARGE } from '../../src/compile/similar-schema.ts';
import { MATCH_MAX_RECORDS } from '../../src/match/input.ts';

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

  it('charges similar as a search per parent row, whatever it selects', () => {
    expect(costOf('{ entity(id: 1) { similar(limit: 5) { data { id reasons { kind } } } } }')).toBe(SIMILAR_SEARCH_CHARGE);
    expect(costOf('{ entities(limit: 4) { data { similar { page { limit } } } } }')).toBe(4 + 4 * SIMILAR_SEARCH_CHARGE);
    expect(costOf('{ similarEntities(id: 1, limit: 3) { data { id } } }')).toBe(SIMILAR_SEARCH_CHARGE);
    // The list of 500 the issue names costs more than the budget whatever similar selects.
    expect(costOf('{ entities(limit: 500) { data { similar { page { limit } } } } }')).toBeGreaterThan(MAX_FAN_OUT_COST);
    // The default page with every entity field two levels deep and its similar companies passes.
    const entity = getNamedType(getSchema().getQueryType()!.getFields().entity!.type) as GraphQLObjectType;
    const everything = (type: GraphQLObjectType, depth: number): string =>
      Object.values(type.getFields())
        .filter((field) => field.args.length === 0)
        .flatMap((field) => {
          const named = getNamedType(field.type);
          if (!isObjectType(named)) return [field.name];
          return depth > 1 ? [`${field.name} { ${everything(named, depth - 1)} }`] : [];
        })
        .join(' ');
    const similar = 'similar { data { id name score reasons { kind detail weight } } page { limit } }';
    expect(costOf(`{ entities { data { ${everything(entity, 2)} ${similar} } } }`)).toBeLessThanOrEqual(MAX_FAN_OUT_COST);
  });

  it('counts the records of every match field together: aliases, fragments, variables', () => {
    const records = (query: string, variables?: Record<string, unknown>) => {
      const document = parse(query);
      return batchRecords(getSchema(), document, getOperationAST(document)!, variables);
    };
    const many = Array.from({ length: MATCH_MAX_RECORDS }, (_, index) => ({ name: `Company ${index}` }));
    const aliases = Array.from({ length: 15 }, (_, index) => `m${index}: match(records: $r) { data { status } }`).join(' ');
    expect(records(`query ($r: [JSON!]!) { ${aliases} }`, { r: many })).toBe(15 * MATCH_MAX_RECORDS);
    expect(records('{ a: match(records: [{name: "x"}, {name: "y"}]) { data { status } } ...M } fragment M on Query { b: match(records: {name: "z"}) { data { status } } }')).toBe(3);
    expect(records('query ($a: JSON!) { match(records: [$a, $a]) { data { status } } entities { data { id } } }', { a: { name: 'x' } })).toBe(2);
    expect(records('{ entities { data { id } } }')).toBe(0);
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

  it('refuses 15 aliases of a 1,000-record match before reading anything, and takes the same records in one field', async () => {
    const many = Array.from({ length: MATCH_MAX_RECORDS }, (_, index) => ({ name: `Company ${index}` }));
    const aliases = Array.from({ length: 15 }, (_, index) => `m${index}: match(records: $r) { data { status } }`).join(' ');
    statements.length = 0;
    const refused = await client.graphql(`query ($r: [JSON!]!) { ${aliases} }`, { r: many }, { accept: GRAPHQL_RESPONSE });
    expect(refused.status).toBe(400);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/match fields hold 15000 records together, over the limit of 1000 a request/),
        extensions: expect.objectContaining({ code: 'VALIDATION_ERROR' }),
      }),
    ]);
    expect(dataStatements()).toEqual([]);
    // Two aliases of 501 are over the budget too; 500 and 500 are within it and answered.
    const two = 'query ($r: [JSON!]!, $s: [JSON!]!) { a: match(records: $r) { data { status } } b: match(records: $s) { data { status } } }';
    expect((await client.graphql(two, { r: many.slice(0, 501), s: many.slice(0, 501) }, { accept: GRAPHQL_RESPONSE })).status).toBe(400);
    const within = await client.graphql(two, { r: many.slice(0, 500), s: many.slice(500) });
    expect(within.status).toBe(200);
    expect(within.body.errors).toBeUndefined();
    expect((within.body.data as { a: { data: unknown[] }; b: { data: unknown[] } }).b.data).toHaveLength(500);
  }, 60_000);

  it('refuses similar under a page of 500 before reading anything, and answers it under a short page', async () => {
    statements.length = 0;
    const query = 'query ($n: Int) { entities(limit: $n) { data { id similar(limit: 3) { data { id score } } } } }';
    const refused = await client.graphql(query, { n: 500 }, { accept: GRAPHQL_RESPONSE });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.message).toMatch(/fan-out cost \d+ is over the limit of 25000/);
    expect(dataStatements()).toEqual([]);
    const small = await client.graphql(query, { n: 5 });
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
