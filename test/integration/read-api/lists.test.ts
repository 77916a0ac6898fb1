// Every read resource over real HTTP on seeded data: record shapes, limits, sorting, offset and cursor
// paging, field selection, and the same records from REST and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

interface ResourceCase {
  path: string;
  graphqlField: string;
  maxLimit: number;
  defaultSort: string;
  fields: string[];
}

const RESOURCES: ResourceCase[] = [
  {
    path: '/api/investors',
    graphqlField: 'investors',
    maxLimit: 500,
    defaultSort: 'id',
    fields: ['id', 'uuid', 'name', 'type', 'image', 'platform_url', 'hq_country', 'hq_city', 'launch_year',
      'total_invested_usd', 'investments_count', 'portfolio_count', 'exits_count', 'lead_investments_count', 'tags'],
  },
  {
    path: '/api/founders',
    graphqlField: 'founders',
    maxLimit: 500,
    defaultSort: 'id',
    fields: ['id', 'uuid', 'name', 'tagline', 'image', 'platform_url', 'gender', 'is_serial_founder', 'is_super_founder',
      'is_promising_founder', 'is_strong_founder', 'launch_year', 'hq_country', 'hq_city', 'tags', 'education',
      'companies', 'backgrounds'],
  },
  {
    path: '/api/transactions',
    graphqlField: 'transactions',
    maxLimit: 2000,
    defaultSort: 'id',
    fields: ['id', 'entity', 'round_type', 'amount_usd', 'currency', 'date', 'valuation_usd', 'investors', 'source_url'],
  },
  {
    path: '/api/valuations',
    graphqlField: 'valuations',
    maxLimit: 2000,
    defaultSort: 'id',
    fields: ['id', 'entity', 'valuation_usd', 'date', 'source', 'transaction_id'],
  },
  {
    path: '/api/news',
    graphqlField: 'news',
    maxLimit: 2000,
    defaultSort: '-publish_date',
    fields: ['id', 'url', 'title', 'summary', 'image_url', 'source', 'article_type', 'publish_date', 'language',
      'amount_usd', 'round_type', 'deal_date', 'sector', 'hq_country', 'enriched_summary', 'relevance_score',
      'hub_score', 'entities'],
  },
];

let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 200 });
  client = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => {
  await app.close();
});

type Row = Record<string, unknown>;
interface ListBody {
  data: Row[];
  page: { limit: number; offset: number; total?: number; next_cursor: string | null };
}

async function list(path: string): Promise<{ status: number; body: ListBody; headers: Headers }> {
  const response = await client.fetch(path);
  return { status: response.status, body: (await response.json()) as ListBody, headers: response.headers };
}

async function expectError(path: string, status: number, code: string, detailPath?: string): Promise<void> {
  const response = await client.fetch(path);
  const body = (await response.json()) as { error: { code: string; details?: { path: string }[] } };
  expect(response.status, path).toBe(status);
  expect(body.error.code, path).toBe(code);
  if (detailPath) expect(body.error.details?.map((detail) => detail.path)).toContain(detailPath);
}

/** Compares two values in a list's sort direction (`sign` -1 for descending); nulls last either way. */
function compareForSort(a: unknown, b: unknown, sign: number): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return sign * ((a as number | string) < (b as number | string) ? -1 : 1);
}

describe.each(RESOURCES)('$path', (resource) => {
  it('returns records with exactly the spec fields, and a page', async () => {
    const { status, body } = await list(`${resource.path}?limit=5`);
    expect(status).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    for (const record of body.data) expect(Object.keys(record).sort()).toEqual([...resource.fields].sort());
    expect(body.page).toEqual({ limit: 5, offset: 0, next_cursor: expect.any(String) });
  });

  it('serves one record by id, 404 for a missing one and 400 for a bad one', async () => {
    const { body } = await list(`${resource.path}?limit=1`);
    const first = body.data[0]!;
    const one = await client.fetch(`${resource.path}/${first.id as number}`);
    expect(one.status).toBe(200);
    expect(((await one.json()) as { data: Row }).data).toEqual(first);
    await expectError(`${resource.path}/999999999`, 404, 'NOT_FOUND');
    await expectError(`${resource.path}/1x`, 400, 'VALIDATION_ERROR', 'path.id');
  });

  it(`accepts limit ${resource.maxLimit} and refuses ${resource.maxLimit + 1}`, async () => {
    expect((await list(`${resource.path}?limit=${resource.maxLimit}`)).status).toBe(200);
    await expectError(`${resource.path}?limit=${resource.maxLimit + 1}`, 400, 'VALIDATION_ERROR', 'query.limit');
  });

  it('counts with include_total and pages with offset and cursor to the same rows', async () => {
    const all = await list(`${resource.path}?limit=${resource.maxLimit}&include_total=true`);
    const total = all.body.page.total!;
    expect(total).toBe(all.body.data.length);
    const viaCursor: unknown[] = [];
    let path = `${resource.path}?limit=7`;
    for (let page = 0; page < 1000; page += 1) {
      const { body } = await list(path);
      viaCursor.push(...body.data.map((record) => record.id));
      if (!body.page.next_cursor) break;
      path = `${resource.path}?limit=7&cursor=${encodeURIComponent(body.page.next_cursor)}`;
    }
    expect(viaCursor).toEqual(all.body.data.map((record) => record.id));
    const viaOffset = await list(`${resource.path}?limit=7&offset=7`);
    expect(viaOffset.body.data.map((record) => record.id)).toEqual(viaCursor.slice(7, 14));
  });

  it(`sorts by ${resource.defaultSort} by default, ties broken by id`, async () => {
    const { body } = await list(`${resource.path}?limit=100`);
    const key = resource.defaultSort.replace(/^-/, '');
    const sign = resource.defaultSort.startsWith('-') ? -1 : 1;
    for (let index = 1; index < body.data.length; index += 1) {
      const [previous, current] = [body.data[index - 1]!, body.data[index]!];
      const order = compareForSort(previous[key], current[key], sign);
      expect(order < 0 || (order === 0 && (previous.id as number) < (current.id as number))).toBe(true);
    }
  });

  it('selects fields with fields= (id always) and refuses unknown ones', async () => {
    const field = resource.fields[2]!;
    const { body } = await list(`${resource.path}?limit=3&fields=${field}`);
    for (const record of body.data) expect(Object.keys(record).sort()).toEqual(['id', field].sort());
    await expectError(`${resource.path}?fields=id,nope`, 400, 'VALIDATION_ERROR', 'query.fields');
  });

  it('returns the same records over GraphQL', async () => {
    const rest = await list(`${resource.path}?limit=10&sort=-id`);
    const selection = rest.body.data[0]!;
    const scalars = Object.keys(selection).filter((key) => selection[key] === null || typeof selection[key] !== 'object');
    const { body } = await client.graphql(
      `query($sort: String) { ${resource.graphqlField}(limit: 10, sort: $sort) { data { ${scalars.join(' ')} } } }`,
      { sort: '-id' },
    );
    expect(body.errors).toBeUndefined();
    const fromGraphQL = (body.data![resource.graphqlField] as { data: Row[] }).data;
    expect(fromGraphQL).toEqual(rest.body.data.map((record) => Object.fromEntries(scalars.map((key) => [key, record[key]]))));
  });
});

describe('list parameters', () => {
  it.each([
    ['/api/entities?sort=nope', 'query.sort'],
    ['/api/entities?sort=name;drop', 'query.sort'],
    ['/api/entities?cursor=abc&offset=5', 'query.cursor'],
    ['/api/entities?cursor=not-a-cursor', 'query.cursor'],
    ['/api/entities?limit=1.5', 'query.limit'],
    ['/api/entities?limit=10&limit=20', 'query.limit'],
  ])('%s is a 400 naming %s', async (path, detailPath) => {
    await expectError(path, 400, 'VALIDATION_ERROR', detailPath);
  });

  it('refuses a cursor made for another sort', async () => {
    const { body } = await list('/api/entities?limit=2&sort=name');
    await expectError(`/api/entities?sort=-name&cursor=${body.page.next_cursor}`, 400, 'VALIDATION_ERROR', 'query.cursor');
  });

  it.each(['valuation_usd', '-valuation_usd', 'round_type,-valuation_usd'])(
    'pages sort=%s over a nullable column by cursor without losing or repeating rows',
    async (sort) => {
      const all = await list(`/api/transactions?limit=2000&sort=${sort}`);
      const values = all.body.data.map((record) => record.valuation_usd);
      expect(values).toContain(null);
      expect(values.some((value) => value !== null)).toBe(true);
      const seen: unknown[] = [];
      let path = `/api/transactions?limit=13&sort=${sort}`;
      for (let page = 0; page < 1000; page += 1) {
        const { body } = await list(path);
        seen.push(...body.data.map((record) => record.id));
        if (!body.page.next_cursor) break;
        path = `/api/transactions?limit=13&sort=${sort}&cursor=${encodeURIComponent(body.page.next_cursor)}`;
      }
      expect(seen).toEqual(all.body.data.map((record) => record.id));
    },
  );
});

describe('filters', () => {
  it.each([
    ['launch_year[gte', 'FILTER_PARSE_ERROR'],
    ['launch_yeer:2020', 'UNKNOWN_FILTER'],
    ['is_unicorn[gt]:true', 'UNSUPPORTED_OPERATOR'],
    ['launch_year[gte]:abc', 'FILTER_VALIDATION_ERROR'],
    ['foo.name:x', 'UNKNOWN_FILTER'],
  ])('%s is a 400 %s naming query.filter', async (filter, code) => {
    await expectError(`/api/entities?filter=${encodeURIComponent(filter)}`, 400, code, 'query.filter');
  });

  it('reports the same code over GraphQL', async () => {
    const { body } = await client.graphql('{ entities(filter: "launch_yeer:2020") { data { id } } }');
    expect(body.errors?.[0]?.extensions?.code).toBe('UNKNOWN_FILTER');
  });

  it('marks the deprecated in/nin operators with Deprecation: true', async () => {
    const legacy = await list('/api/entities?filter=type[in]:company|investor');
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('deprecation')).toBe('true');
    const current = await list('/api/entities?filter=type[in_any]:company|investor');
    expect(current.headers.get('deprecation')).toBeNull();
    expect(current.body.data).toEqual(legacy.body.data);
  });

  it('shows soft-deleted entities only when the filter names deleted_at', async () => {
    const deleted = await list('/api/entities?filter=deleted_at[neq]:null&limit=500');
    expect(deleted.body.data.length).toBeGreaterThan(0);
    const ids = new Set(deleted.body.data.map((record) => record.id));
    const visible = await list('/api/entities?limit=500');
    expect(visible.body.data.some((record) => ids.has(record.id))).toBe(false);
    const one = deleted.body.data[0]!;
    expect((await client.fetch(`/api/entities/${one.id as number}`)).status).toBe(404);
  });

  it('filters on derived fields and cross-references', async () => {
    const unicorns = await list('/api/entities?filter=is_unicorn:true&limit=500&fields=id');
    const funded = await list('/api/entities?filter=total_funding_usd[gte]:1000000&sort=-launch_year&limit=500');
    expect(unicorns.status).toBe(200);
    expect(funded.status).toBe(200);
    const backed = await list('/api/entities?filter=investor__total_invested_usd[gte]:1&limit=500');
    expect(backed.body.data.length).toBeGreaterThan(0);
  });
});

describe('GET /api/filters', () => {
  it('describes every filterable field of a resource', async () => {
    const response = await client.fetch('/api/filters/entities');
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { name: string; type: string; operators: string[]; sortable: boolean }[] };
    const byName = new Map(data.map((field) => [field.name, field]));
    expect(byName.get('launch_year')).toMatchObject({ type: 'int', sortable: true });
    expect(byName.get('tags')).toMatchObject({ type: 'id_list', operators: expect.arrayContaining(['in_all']) });
    expect(byName.get('location')).toMatchObject({ values_url: '/api/filters/location/values' });
    expect(byName.has('investor__total_invested_usd')).toBe(true);
  });

  it('is 404 for an unknown resource', async () => {
    await expectError('/api/filters/planets', 404, 'NOT_FOUND');
  });

  it('looks location ids up by name, and they filter entities by country or city', async () => {
    const { data: entities } = (await (await client.fetch('/api/entities?limit=1&filter=hq_country[neq]:""')).json()) as { data: Row[] };
    const country = entities[0]!.hq_country as string;
    const response = await client.fetch(`/api/filters/location/values?q=${encodeURIComponent(country.slice(0, 3))}`);
    const { data: locations } = (await response.json()) as { data: { id: number; name: string; kind: string }[] };
    const location = locations.find((candidate) => candidate.name === country && candidate.kind === 'country')!;
    expect(location).toBeDefined();
    const inCountry = await list(`/api/entities?filter=location:${location.id}&limit=500`);
    expect(inCountry.body.data.length).toBeGreaterThan(0);
    expect(inCountry.body.data.every((record) => record.hq_country === country)).toBe(true);
  });
});
