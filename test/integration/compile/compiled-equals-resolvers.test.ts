/**
 * The compiled reads (src/compile) answer exactly what the resolvers answer. Two apps share one seeded
 * database: one serves reads from compiled SQL (the default), the other with COMPILED_READS=false
 * through the Pothos resolvers, the reference. Every REST list and record route is asked the same
 * questions (sorts on every sortable field in both directions, offsets, cursors, totals, filters,
 * `fields=`), and GraphQL is asked for every field of every type three levels deep; the bodies,
 * statuses and Deprecation headers must be equal byte for byte.
 *
 * The generated filters of the differential test (read-api/differential.test.ts) also run on the
 * compiled path, against an in-memory evaluation: that test is what proves the where translation.
 */
import { getNamedType, GraphQLObjectType, isObjectType, type GraphQLField } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { sortableFields, type Resource } from '../../../src/filter/index.ts';
import { getSchema } from '../../../src/schema/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

const statements: string[] = [];
let db: TestDatabase;
let compiled: { app: TestApp; auth: TestCredentials };
let resolvers: { app: TestApp; auth: TestCredentials };

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: (sql) => statements.push(sql) });
  await seedDatabase(db, { entities: 300 });
  const start = async (env: Record<string, string>) => {
    const app = await startTestApp({ db, env });
    return { app, auth: await createApiKeyAndToken(app) };
  };
  compiled = await start({});
  resolvers = await start({ COMPILED_READS: 'false' });
}, 120_000);

afterAll(async () => {
  await compiled?.app.close();
  await resolvers?.app.close();
  await db?.destroy();
});

interface Answer {
  status: number;
  deprecation: string | null;
  body: string;
}

async function answer(response: Response): Promise<Answer> {
  return { status: response.status, deprecation: response.headers.get('deprecation'), body: await response.text() };
}

/** Both apps' answers to one REST request; the compiled one must equal the reference. */
async function sameOverRest(path: string): Promise<Answer> {
  const [ours, reference] = await Promise.all([compiled.auth.fetch(path).then(answer), resolvers.auth.fetch(path).then(answer)]);
  expect(ours, path).toEqual(reference);
  return ours;
}

async function sameOverGraphQL(query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const [ours, reference] = await Promise.all([compiled.auth.graphql(query, variables), resolvers.auth.graphql(query, variables)]);
  expect(ours, query).toEqual(reference);
  return ours.body as Record<string, unknown>;
}

const LISTS: readonly { resource: Resource; path: string }[] = [
  { resource: 'entities', path: '/api/entities' },
  { resource: 'founders', path: '/api/founders' },
  { resource: 'investors', path: '/api/investors' },
  { resource: 'transactions', path: '/api/transactions' },
  { resource: 'valuations', path: '/api/valuations' },
  { resource: 'news', path: '/api/news' },
];

describe.each(LISTS)('REST $path', ({ resource, path }) => {
  test('every sortable field, both directions, with the total and the next page by cursor', async () => {
    for (const name of sortableFields(resource).keys()) {
      for (const sort of [name, `-${name}`]) {
        const first = await sameOverRest(`${path}?sort=${sort}&limit=7&include_total=true`);
        const cursor = (JSON.parse(first.body) as { page: { next_cursor: string | null } }).page.next_cursor;
        expect(cursor, `${path}?sort=${sort} has a second page`).not.toBeNull();
        await sameOverRest(`${path}?sort=${sort}&limit=7&cursor=${encodeURIComponent(cursor!)}`);
      }
    }
  });

  test('offsets, the last page, fields=, and a page past the end', async () => {
    const all = JSON.parse((await sameOverRest(`${path}?include_total=true&limit=1`)).body) as { page: { total: number } };
    expect(all.page.total).toBeGreaterThan(10);
    for (const query of ['offset=5&limit=3', `offset=${all.page.total - 2}&limit=5`, `offset=${all.page.total + 10}`, 'fields=id&limit=4', 'limit=2&sort=-id']) {
      await sameOverRest(`${path}?${query}`);
    }
  });

  test('a page and a record are each one compiled statement (with the total, one more: the count)', async () => {
    const { data } = JSON.parse((await sameOverRest(`${path}?limit=1`)).body) as { data: { id: number }[] };
    for (const [request, expected] of [[`${path}?limit=5`, 1], [`${path}?limit=5&include_total=true`, 2], [`${path}/${data[0]!.id}`, 1]] as const) {
      statements.length = 0;
      expect((await compiled.auth.fetch(request)).status).toBe(200);
      const reads = statements.filter((sql) => /^\s*(SELECT|WITH)/i.test(sql));
      expect(reads, request).toHaveLength(expected);
      expect(reads[0], request).toContain('row_to_json');
    }
  });

  test('records by id, present and missing', async () => {
    const { data } = JSON.parse((await sameOverRest(`${path}?limit=5&sort=-id`)).body) as { data: { id: number }[] };
    for (const { id } of data) await sameOverRest(`${path}/${id}`);
    await sameOverRest(`${path}/999999`);
  });
});

describe('REST filters and inputs', () => {
  test.each([
    '/api/entities?filter=hq_country:Germany&sort=-total_funding_usd&include_total=true',
    '/api/entities?filter=and(launch_year[gte]:2010,is_unicorn:false)&sort=name',
    '/api/entities?filter=name[contains]:a&limit=10',
    '/api/entities?filter=deleted_at[neq]:null&include_total=true',
    '/api/entities?filter=tags[in_any]:1,2,3&sort=-launch_year',
    '/api/entities?filter=or(hq_country:France,tags[in_all]:1,2)',
    '/api/entities?filter=tags[in]:1,2',
    '/api/investors?filter=investor__name[starts_with]:a&sort=-total_invested_usd',
    '/api/investors?sort=name&limit=9',
    '/api/transactions?filter=amount_usd[gt]:1000000&sort=-date&include_total=true',
    '/api/news?filter=amount_usd[gte]:10&sort=amount_usd',
    '/api/valuations?filter=valuation_usd[lt]:1000000000&sort=-valuation_usd',
    '/api/founders?filter=name[starts_with]:j&sort=-launch_year',
    '/api/entities?filter=launch_year[gte]:abc',
    '/api/entities?sort=nope',
    '/api/entities?limit=0',
    '/api/entities?cursor=not-a-cursor',
  ])('%s', async (path) => {
    await sameOverRest(path);
  });
});

/** Every field of `type` whose value needs no arguments, objects expanded `depth` levels down. */
function selectEverything(type: GraphQLObjectType, depth: number): string {
  const fields = Object.values(type.getFields()).filter((field: GraphQLField<unknown, unknown>) => field.args.length === 0);
  const parts = fields.flatMap((field) => {
    const named = getNamedType(field.type);
    if (!isObjectType(named)) return [field.name];
    return depth > 1 ? [`${field.name} { ${selectEverything(named, depth - 1)} }`] : [];
  });
  return ['__typename', ...parts].join(' ');
}

describe('GraphQL', () => {
  const schema = getSchema();
  const roots = Object.values(schema.getQueryType()!.getFields()).filter((field) => {
    const extensions = field.extensions as { list?: unknown; record?: unknown };
    return extensions.list || extensions.record;
  });

  test('the compiled roots are the six lists and their records', () => {
    expect(roots.map((field) => field.name).sort()).toEqual(
      ['entities', 'entity', 'founder', 'founders', 'investor', 'investors', 'news', 'news_article', 'transaction', 'transactions', 'valuation', 'valuations'].sort(),
    );
  });

  test.each(roots.filter((field) => 'list' in (field.extensions as object)).map((field) => field.name))(
    '%s: every field two levels deep, and three where the fan-out limit allows',
    async (name) => {
      const listType = getNamedType(schema.getQueryType()!.getFields()[name]!.type) as GraphQLObjectType;
      const itemType = getNamedType(listType.getFields().data!.type) as GraphQLObjectType;
      for (const depth of [2, 3]) {
        const body = await sameOverGraphQL(
          `query ($limit: Int) { ${name}(limit: $limit, sort: "-id") { __typename data { ${selectEverything(itemType, depth)} } page { __typename limit offset total total_is_estimate next_cursor } } }`,
          { limit: 6 },
        );
        if (depth === 2) expect((body.data as Record<string, { data: unknown[] }>)[name]!.data).toHaveLength(6);
      }
    },
  );

  test.each(roots.filter((field) => 'record' in (field.extensions as object)).map((field) => field.name))(
    '%s: every field two and three levels deep',
    async (name) => {
      const type = getNamedType(schema.getQueryType()!.getFields()[name]!.type) as GraphQLObjectType;
      for (const id of [1, 2, 3, 999_999]) {
        for (const depth of [2, 3]) await sameOverGraphQL(`{ ${name}(id: ${id}) { ${selectEverything(type, depth)} } }`);
      }
    },
  );

  test('aliases, fragments, @include and @skip, several root fields', async () => {
    await sameOverGraphQL(
      `query ($total: Boolean!, $skipTags: Boolean!) {
        a: entities(limit: 3, sort: "name") { data { ...Named tags @skip(if: $skipTags) { id } } page { total @include(if: $total) } }
        b: founders(limit: 2) { data { id ... on Founder { name } } }
        e: entity(id: 2) { ...Named }
      }
      fragment Named on Entity { id label: name }`,
      { total: true, skipTags: false },
    );
    await sameOverGraphQL(`query ($total: Boolean!) { entities(limit: 2) { page { total @include(if: $total) limit } } }`, { total: false });
  });

  test('a compiled read is one statement; a field the compiler does not cover falls back to the resolvers', async () => {
    statements.length = 0;
    const query = `{ entities(limit: 25, filter: "hq_country:Germany") { data { id name tags { name } founders { name companies { entity { name } } } rounds { id investors { name } } } } }`;
    await compiled.auth.graphql(query);
    const reads = statements.filter((sql) => /^\s*(SELECT|WITH)/i.test(sql));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toContain('row_to_json');

    statements.length = 0;
    // Entity.investors walks two list relations (rounds, then their investors): not compiled.
    await sameOverGraphQL(`{ entities(limit: 5, sort: "-id") { data { id investors { id name } } } }`);
    expect(statements.some((sql) => sql.includes('row_to_json'))).toBe(false);
  });

  test('errors are the resolvers\' errors, with their paths', async () => {
    await sameOverGraphQL(`{ entities(filter: "launch_year[gte]:abc") { data { id } } }`);
    await sameOverGraphQL(`{ entities(limit: 9999) { data { id } } }`);
    await sameOverGraphQL(`query ($limit: Int) { entities(limit: $limit) { data { id } } }`, { limit: 'many' });
  });
});
