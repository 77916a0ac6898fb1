/**
 * The compiled reads (src/compile) answer exactly what the resolvers answer. Two apps share one seeded
 * database: one serves reads from compiled SQL (the default), the other with COMPILED_READS=false
 * through the Pothos resolvers, the reference. Every REST list and record route is asked the same
 * questions (sorts on every sortable field in both directions, offsets, cursors, totals, filters,
 * `fields=`, CSV), and GraphQL is asked for every field of every type three levels deep; the bodies,
 * statuses and Deprecation headers must be equal byte for byte. Each comparison also proves which path
 * answered: the compiled app counts each operation as compiled (`compiled_reads_total`), with no
 * fallback, or else for the reason the case expects; the reference app has no compiled path at all.
 *
 * The generated filters of the differential test (read-api/differential.test.ts) also run on the
 * compiled path, against an in-memory evaluation: that test is what proves the where translation.
 */
import { getNamedType, GraphQLObjectType, isObjectType, type GraphQLField } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { sortableFields, type Resource } from '../../../src/filter/index.ts';
import { FALLBACK_REASONS } from '../../../src/compile/statement.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { compiledReadsMovedBy, readCompiledReadCounters } from '../../helpers/compiled-reads.ts';
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
  // Every field three levels deep reaches more records than the default fan-out limit allows.
  compiled = await start({ GRAPHQL_MAX_FAN_OUT: '10000000', LOG_LEVEL: 'debug' });
  resolvers = await start({ COMPILED_READS: 'false', GRAPHQL_MAX_FAN_OUT: '10000000' });
}, 120_000);

afterAll(async () => {
  await compiled?.app.close();
  await resolvers?.app.close();
  await db?.destroy();
});

/**
 * What the compiled app must have done for one request: compiled each of its `operations`, or fallen
 * back for `reason`; 'refused' when the request is refused before any operation runs.
 */
type Path = { operations: number } | { reason: string } | 'refused';
const COMPILED: Path = { operations: 1 };

async function expectPath(label: string, path: Path, request: () => Promise<void>): Promise<void> {
  const { compiled: count, fallbacks } = await compiledReadsMovedBy(compiled.app, request);
  const expected =
    path === 'refused' ? { count: 0, fallbacks: {} } : 'reason' in path ? { count: 0, fallbacks: { [path.reason]: 1 } } : { count: path.operations, fallbacks: {} };
  expect({ count, fallbacks }, label).toEqual(expected);
}

interface Answer {
  status: number;
  deprecation: string | null;
  body: string;
}

async function answer(response: Response): Promise<Answer> {
  return { status: response.status, deprecation: response.headers.get('deprecation'), body: await response.text() };
}

/** Both apps' answers to one REST request; the compiled one must equal the reference, and have taken `path`. */
async function sameOverRest(url: string, path: Path = COMPILED, headers: Record<string, string> = {}): Promise<Answer> {
  let ours!: Answer;
  await expectPath(url, path, async () => {
    const [mine, reference] = await Promise.all([
      compiled.auth.fetch(url, { headers }).then(answer),
      resolvers.auth.fetch(url, { headers }).then(answer),
    ]);
    expect(mine, url).toEqual(reference);
    ours = mine;
  });
  return ours;
}

async function sameOverGraphQL(query: string, variables: Record<string, unknown> = {}, path: Path = COMPILED): Promise<Record<string, unknown>> {
  let ours!: Record<string, unknown>;
  await expectPath(query, path, async () => {
    const [mine, reference] = await Promise.all([compiled.auth.graphql(query, variables), resolvers.auth.graphql(query, variables)]);
    expect(mine, query).toEqual(reference);
    ours = mine.body as Record<string, unknown>;
  });
  return ours;
}

test('the reference app has no compiled path; the compiled app counts every reason, from zero', async () => {
  expect(await (await resolvers.app.fetch('/metrics')).text()).not.toMatch(/^compiled_reads/m);
  const { compiled: count, fallbacks } = await readCompiledReadCounters(compiled.app);
  expect(count).toBeGreaterThanOrEqual(0);
  expect(Object.keys(fallbacks).sort()).toEqual([...FALLBACK_REASONS].sort());
});

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
    // Four requests per sortable field and direction: about 20 s for entities on PGlite alone, more beside another file.
  }, 120_000);

  test('offsets, the last page, fields=, and a page past the end', async () => {
    const all = JSON.parse((await sameOverRest(`${path}?include_total=true&limit=1`)).body) as { page: { total: number } };
    expect(all.page.total).toBeGreaterThan(10);
    for (const query of ['offset=5&limit=3', `offset=${all.page.total - 2}&limit=5`, `offset=${all.page.total + 10}`, 'fields=id&limit=4', 'limit=2&sort=-id']) {
      await sameOverRest(`${path}?${query}`);
    }
  });

  test('the CSV export, every page of it to the last row, and with fields=', async () => {
    const { page } = JSON.parse((await sameOverRest(`${path}?include_total=true&limit=1`)).body) as { page: { total: number } };
    // Pages of 40: the export runs one compiled operation per page, through to the last row.
    const pages = Math.ceil(page.total / 40);
    const csv = await sameOverRest(`${path}?format=csv&limit=40&sort=-id`, { operations: pages });
    expect(csv.body.trimEnd().split('\n')).toHaveLength(page.total + 1);
    await sameOverRest(`${path}?limit=100&fields=id&sort=id`, { operations: Math.ceil(page.total / 100) }, { accept: 'text/csv' });
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
    '/api/entities?filter=tags[in_any]:1|2|3&sort=-launch_year',
    '/api/entities?filter=or(hq_country:France,tags[in_all]:1|2)',
    '/api/entities?filter=tags[in]:1|2',
    '/api/entities?filter=investor__name[starts_with]:a&sort=-total_funding_usd',
    '/api/investors?filter=name[starts_with]:a&sort=-total_invested_usd',
    '/api/investors?sort=name&limit=9',
    '/api/transactions?filter=amount_usd[gt]:1000000&sort=-date&include_total=true',
    '/api/news?filter=amount_usd[gte]:10&sort=amount_usd',
    '/api/valuations?filter=valuation_usd[lt]:1000000000&sort=-valuation_usd',
    '/api/founders?filter=name[starts_with]:j&sort=-launch_year',
  ])('%s', async (path) => {
    await sameOverRest(path);
  });

  test.each([
    '/api/entities?filter=launch_year[gte]:abc',
    '/api/entities?sort=nope',
    '/api/entities?limit=0',
    '/api/entities?cursor=not-a-cursor',
  ])('%s: the resolvers word the error', async (path) => {
    await sameOverRest(path, { reason: 'invalid_arguments' });
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

  test('the compiled roots are the six lists and their records, and an ecosystem\'s entities', () => {
    expect(roots.map((field) => field.name).sort()).toEqual(
      ['entities', 'entity', 'founder', 'founders', 'investor', 'investors', 'news', 'news_article', 'transaction', 'transactions', 'valuation', 'valuations'].sort(),
    );
    const listFor = Object.values(schema.getQueryType()!.getFields()).filter((field) => 'listFor' in (field.extensions as object));
    expect(listFor.map((field) => field.name)).toEqual(['ecosystemEntities']);
  });

  test('an ecosystem\'s entities, over GraphQL and REST, with sorts, filters, cursors and a missing ecosystem', async () => {
    const created = await compiled.auth.fetch('/api/ecosystems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'compiled-eco', name: 'Compiled', filter: 'launch_year[gte]:2000' }),
    });
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { data: { id: number } }).data;
    const entityType = getNamedType(schema.getQueryType()!.getFields().entity!.type) as GraphQLObjectType;
    const first = await sameOverGraphQL(
      `query ($cursor: String) { ecosystemEntities(ecosystem: "compiled-eco", limit: 5, sort: "-total_funding_usd", cursor: $cursor) { data { ${selectEverything(entityType, 2)} } page { total next_cursor } } }`,
    );
    const cursor = (first.data as { ecosystemEntities: { page: { next_cursor: string } } }).ecosystemEntities.page.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    await sameOverGraphQL(`query ($cursor: String) { ecosystemEntities(ecosystem: "${id}", limit: 5, sort: "-total_funding_usd", cursor: $cursor) { data { id name } } }`, { cursor });
    for (const query of ['sort=name&include_total=true', 'filter=hq_country:Germany&sort=-launch_year', 'offset=3&limit=4', 'fields=id,name']) {
      await sameOverRest(`/api/ecosystems/${id}/entities?${query}`);
    }
    await sameOverRest('/api/ecosystems/999999/entities', { reason: 'invalid_arguments' });
  });

  test.each(roots.filter((field) => 'list' in (field.extensions as object)).map((field) => field.name))(
    '%s: every field two and three levels deep',
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

  test('every field of an entity three levels deep is one statement; a root field the compiler does not cover falls back', async () => {
    statements.length = 0;
    const entityType = getNamedType(schema.getQueryType()!.getFields().entity!.type) as GraphQLObjectType;
    await compiled.auth.graphql(`{ entity(id: 2) { ${selectEverything(entityType, 3)} } }`);
    const reads = statements.filter((sql) => /^\s*(SELECT|WITH)/i.test(sql));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toContain('row_to_json');

    // With the similar companies of a list's every row: still one statement, not one more per row.
    statements.length = 0;
    const listWithSimilar = `{ entities(limit: 10) { data { ${selectEverything(entityType, 2)} similar(limit: 3) { data { id score reasons { kind weight } } } } } }`;
    await expectPath(listWithSimilar, COMPILED, async () => {
      expect((await compiled.auth.graphql(listWithSimilar)).body.errors).toBeUndefined();
    });
    const withSimilar = statements.filter((sql) => /^\s*(SELECT|WITH)/i.test(sql));
    expect(withSimilar).toHaveLength(1);
    expect(withSimilar[0]).toContain('similarity_profiles');

    // Entity.investors walks two list relations (rounds, then their investors), in their declared orders.
    await sameOverGraphQL(`{ entities(limit: 40, sort: "-total_funding_usd") { data { id investors { id name portfolio { id } } } } }`);

    // Ecosystems are the caller's own records, served by their resolvers: the whole operation with them,
    // and a debug line says so, with the request id.
    const logged = compiled.app.logs.length;
    await sameOverGraphQL(`{ entities(limit: 2) { data { id } } ecosystems { data { id } } }`, {}, { reason: 'root_field' });
    const fallback = compiled.app.logs.slice(logged).map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'read served by the resolvers');
    expect(fallback).toMatchObject({ level: 20, reason: 'root_field', requestId: expect.any(String), detail: expect.stringContaining('ecosystems') });
  });

  test('similar is compiled into the list and record statements, and answers as its resolver does, to the byte', async () => {
    const text = async (credentials: TestCredentials, query: string, variables: Record<string, unknown>) => {
      const response = await credentials.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      return { status: response.status, body: await response.text() };
    };
    const sameText = async (query: string, variables: Record<string, unknown> = {}, path: Path = COMPILED, callers = [compiled.auth, resolvers.auth]) => {
      let body = '';
      await expectPath(query, path, async () => {
        const [mine, reference] = await Promise.all([text(callers[0]!, query, variables), text(callers[1]!, query, variables)]);
        expect(mine, query).toEqual(reference);
        body = mine.body;
      });
      return JSON.parse(body) as { data: Record<string, { data: { similar: { data: unknown[] } }[] }> };
    };
    const everything = 'similar { __typename data { __typename id name score reasons { __typename kind detail weight } } page { __typename limit } }';
    const page = await sameText(`{ entities(limit: 20, sort: "-id") { data { id ${everything} } } }`);
    // The seeded companies share tags: most have similar companies, with reasons.
    expect(page.data.entities!.data.filter((row) => row.similar.data.length > 0).length).toBeGreaterThan(10);
    await sameText(
      'query ($n: Int) { entities(limit: 8) { data { a: similar(limit: $n) { data { id score } } b: similar(limit: 2) { ...S } } } } ' +
        'fragment S on SimilarCompanies { page { limit } data { ... on SimilarCompany { name reasons { weight kind } } } }',
      { n: 4 },
    );
    await sameText('query ($n: Int) { entities(limit: 5) { data { similar(limit: $n) { data { id } } } } }');
    for (const id of [1, 2, 3, 999_999]) await sameText(`{ entity(id: ${id}) { name similar(limit: 12) { data { id name score reasons { kind detail weight } } page { limit } } } }`);
    // Nested: an investor's portfolio companies, each with its similar companies.
    await sameText('{ investors(limit: 3) { data { portfolio { id similar(limit: 2) { data { id score } } } } } }');

    // Without read:investors no investor reason is shown or counted, on both paths (the permission is bound per request).
    const [mine, reference] = await Promise.all([
      createApiKeyAndToken(compiled.app, { permissions: ['read:entities'] }),
      createApiKeyAndToken(resolvers.app, { permissions: ['read:entities'] }),
    ]);
    const narrow = await sameText(`{ entities(limit: 20, sort: "-id") { data { ${everything} } } }`, {}, COMPILED, [mine, reference]);
    expect(JSON.stringify(narrow)).not.toContain('"investor"');
    expect(JSON.stringify(page)).toContain('"investor"');

    // What the compiled path leaves to the resolvers: a filter (its SQL depends on its text), a limit they refuse.
    await sameText('{ entities(limit: 2) { data { similar(filter: "hq_country:Germany") { data { id } } } } }', {}, { reason: 'field_arguments' });
    await sameText('{ entities(limit: 2) { data { similar(limit: 0) { data { id } } } } }', {}, { reason: 'invalid_arguments' });
    await sameText('query ($n: Int) { entities(limit: 2) { data { similar(limit: $n) { data { id } } } } }', { n: 101 }, { reason: 'invalid_arguments' });
    // The reference runs a statement per row: on the embedded database, on a loaded machine, a minute or more.
  }, 240_000);

  test('errors are the resolvers\' errors, with their paths', async () => {
    await sameOverGraphQL(`{ entities(filter: "launch_year[gte]:abc") { data { id } } }`, {}, { reason: 'invalid_arguments' });
    await sameOverGraphQL(`{ entities(limit: 9999) { data { id } } }`, {}, { reason: 'invalid_arguments' });
    await sameOverGraphQL(`query ($limit: Int) { entities(limit: $limit) { data { id } } }`, { limit: 'many' }, { reason: 'invalid_variables' });
  });
});
