/**
 * Aggregates refuse what they cannot answer with a 400 naming a close match, the same on REST and
 * GraphQL; need the source's read permission and, for a related dimension or filter, the related
 * source's (403, no data); serve an ecosystem's entities; export CSV; and run one statement a request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let admin: TestCredentials;
const statements: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ onQuery: (sql) => statements.push(sql) });
  await seedDatabase(app.db, { entities: 150, seed: 7 });
  admin = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => app?.close());

interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

async function rest(client: TestCredentials, path: string): Promise<{ status: number; body: ErrorBody & Record<string, unknown> }> {
  const response = await client.fetch(path);
  return { status: response.status, body: (await response.json()) as ErrorBody & Record<string, unknown> };
}

/** [REST query, GraphQL arguments, code, detail path on REST, text the message must hold] */
const REFUSALS: [string, string, string, string, string][] = [
  ['metric=counts', 'metrics: ["counts"]', 'VALIDATION_ERROR', 'query.metric', 'close matches: count'],
  // Two swapped letters are one edit: a five-letter name's budget (src/filter/suggest.ts).
  ['metric=coutn', 'metrics: ["coutn"]', 'VALIDATION_ERROR', 'query.metric', 'close matches: count'],
  ['metric=sun:amount_usd', 'metrics: ["sun:amount_usd"]', 'VALIDATION_ERROR', 'query.metric', 'close matches: sum'],
  ['metric=sum:amount_us', 'metrics: ["sum:amount_us"]', 'VALIDATION_ERROR', 'query.metric', 'close matches: amount_usd'],
  ['metric=sum:round_type', 'metrics: ["sum:round_type"]', 'VALIDATION_ERROR', 'query.metric', "'round_type' is string"],
  ['metric=median:date', 'metrics: ["median:date"]', 'VALIDATION_ERROR', 'query.metric', 'takes a numeric field'],
  ['metric=p00:amount_usd', 'metrics: ["p00:amount_usd"]', 'VALIDATION_ERROR', 'query.metric', 'p01 to p99'],
  ['metric=Total,count', 'metrics: ["Total,count"]', 'VALIDATION_ERROR', 'query.metric', "invalid label 'Total'"],
  ['metric=count&metric=count', 'metrics: ["count", "count"]', 'VALIDATION_ERROR', 'query.metric', "'count' is used twice"],
  [
    Array.from({ length: 11 }, (_, index) => `metric=m${index},count`).join('&'),
    `metrics: [${Array.from({ length: 11 }, (_, index) => `"m${index},count"`).join(', ')}]`,
    'VALIDATION_ERROR',
    'query.metric',
    'at most 10 metrics',
  ],
  ['metric=count&group_by=round_typ', 'metrics: ["count"], groupBy: "round_typ"', 'VALIDATION_ERROR', 'query.group_by', 'close matches: round_type'],
  ['metric=count&group_by=date:yaer', 'metrics: ["count"], groupBy: "date:yaer"', 'VALIDATION_ERROR', 'query.group_by', 'year'],
  ['metric=count&group_by=amount_usd:bucket(0)', 'metrics: ["count"], groupBy: "amount_usd:bucket(0)"', 'VALIDATION_ERROR', 'query.group_by', 'positive width'],
  ['metric=count&group_by=round_type:year', 'metrics: ["count"], groupBy: "round_type:year"', 'VALIDATION_ERROR', 'query.group_by', 'takes no bucket'],
  ['metric=count&group_by=entity.hq_countyr', 'metrics: ["count"], groupBy: "entity.hq_countyr"', 'VALIDATION_ERROR', 'query.group_by', 'entity.hq_country'],
  [
    'metric=count&group_by=round_type,currency,date:year,entity.hq_country',
    'metrics: ["count"], groupBy: "round_type,currency,date:year,entity.hq_country"',
    'VALIDATION_ERROR',
    'query.group_by',
    'at most 3 dimensions',
  ],
  ['metric=count&having=cont[gte]:1', 'metrics: ["count"], having: "cont[gte]:1"', 'UNKNOWN_FILTER', 'query.having', 'close matches: count'],
  ['metric=count&having=count[gte]:abc', 'metrics: ["count"], having: "count[gte]:abc"', 'FILTER_VALIDATION_ERROR', 'query.having', 'abc'],
  ['metric=count&having=count[gte', 'metrics: ["count"], having: "count[gte"', 'FILTER_PARSE_ERROR', 'query.having', 'position'],
  ['metric=count&sort=-counts', 'metrics: ["count"], sort: "-counts"', 'VALIDATION_ERROR', 'query.sort', 'close matches: count'],
  ['metric=count&filter=round_typ:seed', 'metrics: ["count"], filter: "round_typ:seed"', 'UNKNOWN_FILTER', 'query.filter', 'close matches: round_type'],
  ['metric=count&limit=501', 'metrics: ["count"], limit: 501', 'VALIDATION_ERROR', 'query.limit', '1 to 500'],
];

describe('refusals, the same on both transports', () => {
  it.each(REFUSALS)('%s', async (query, args, code, path, text) => {
    const { status, body } = await rest(admin, `/api/aggregate/transactions?${query}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toContain(text);
    expect(body.error.details?.[0]?.path).toBe(path);

    // On GraphQL a refused argument is a field error: 200, the error's code and path (docs/graphql-errors.md).
    const graphql = await admin.graphql(`{ aggregate(source: "transactions", ${args}) { data } }`);
    expect(graphql.status).toBe(200);
    expect(graphql.body.errors?.[0]).toMatchObject({ path: ['aggregate'] });
    const error = graphql.body.errors?.[0];
    expect(error?.extensions?.code).toBe(code);
    expect(error?.message).toBe(body.error.message);
    expect(graphql.body.data?.aggregate ?? null).toBeNull();
  });

  it('an unknown source: 404 on REST (no such path), a field error with a close match on GraphQL', async () => {
    expect((await rest(admin, '/api/aggregate/transaction?metric=count')).status).toBe(404);
    const { status, body } = await admin.graphql('{ aggregate(source: "transaction", metrics: ["count"]) { data } }');
    expect(status).toBe(200);
    expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(body.errors?.[0]?.message).toContain('close matches: transactions');
  });

  it('an unknown parameter is refused with its close match', async () => {
    const { status, body } = await rest(admin, '/api/aggregate/transactions?metric=count&groupby=round_type');
    expect(status).toBe(400);
    expect(body.error.details?.[0]).toMatchObject({ path: 'query.groupby', message: expect.stringContaining('group_by') });
  });
});

describe('permissions', () => {
  it("needs the source's read permission, and the related source's for a related dimension or filter", async () => {
    const rounds = await createApiKeyAndToken(app, { permissions: ['read:transactions'] });
    expect((await rest(rounds, '/api/aggregate/transactions?metric=count&group_by=round_type')).status).toBe(200);
    for (const [path, missing] of [
      ['/api/aggregate/entities?metric=count', 'read:entities'],
      ['/api/aggregate/transactions?metric=count&group_by=entity.hq_country', 'read:entities'],
      ['/api/aggregate/transactions?metric=count&group_by=investors.name', 'read:investors'],
    ] as const) {
      const { status, body } = await rest(rounds, path);
      expect(status, path).toBe(403);
      expect(body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining(missing) });
      expect(body).not.toHaveProperty('data');
    }
    const related = await rounds.graphql('{ aggregate(source: "transactions", metrics: ["count"], groupBy: "investors.name") { data page { total } } }');
    // The related source's permission is the resolver's check: a field error, nothing of the answer given.
    expect(related.status).toBe(200);
    expect(related.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(related.body.data?.aggregate ?? null).toBeNull();
    const other = await rounds.graphql('{ aggregate(source: "founders", metrics: ["count"]) { page { total } } }');
    expect(other.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const entities = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    expect((await rest(entities, '/api/aggregate/entities?metric=count&group_by=tags.name')).status).toBe(200);
    const { status, body } = await rest(entities, '/api/aggregate/entities?metric=count&filter=investor__total_invested_usd[gte]:1');
    expect(status).toBe(403);
    expect(body.error.message).toContain('read:investors');
  });

  it("an ecosystem's aggregate needs read:ecosystems and read:entities, and sees only the caller's ecosystems", async () => {
    const created = await admin.fetch('/api/ecosystems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'us-companies', name: 'US', filter: 'hq_country:United States' }),
    });
    expect(created.status).toBe(201);
    const listed = (await (await admin.fetch('/api/ecosystems/us-companies/entities?include_total=true&limit=1')).json()) as { page: { total: number } };
    const { status, body } = await rest(admin, '/api/ecosystems/us-companies/aggregate?metric=count&group_by=hq_country');
    expect(status).toBe(200);
    expect(body.data).toEqual([{ hq_country: 'United States', count: listed.page.total }]);
    const narrowed = await rest(admin, '/api/ecosystems/us-companies/aggregate?metric=count&filter=hq_country:Germany');
    expect(narrowed.body.data).toEqual([{ count: 0 }]);

    const noEntities = await createApiKeyAndToken(app, { permissions: ['read:ecosystems'] });
    expect((await rest(noEntities, '/api/ecosystems/us-companies/aggregate?metric=count')).status).toBe(403);
    const noEcosystems = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    expect((await rest(noEcosystems, '/api/ecosystems/us-companies/aggregate?metric=count')).status).toBe(403);
    const otherOrg = await createApiKeyAndToken(app, { org: 'another-org' });
    expect((await rest(otherOrg, '/api/ecosystems/us-companies/aggregate?metric=count')).status).toBe(404);
  });
});

describe('serving', () => {
  it('answers one request with one SQL statement over the data', async () => {
    statements.length = 0;
    const { status } = await rest(admin, '/api/aggregate/transactions?metric=count&metric=median:amount_usd&group_by=entity.hq_country,date:year&filter=round_type:seed&having=count[gte]:1');
    expect(status).toBe(200);
    expect(statements.filter((sql) => /funding_rounds/.test(sql))).toHaveLength(1);
  });

  it('exports every group as CSV, page after page', async () => {
    const json = (await (await admin.fetch('/api/aggregate/transactions?metric=count&metric=total,sum:amount_usd&group_by=investors.name&limit=500')).json()) as {
      page: { total: number };
    };
    expect(json.page.total).toBeGreaterThan(6);
    const response = await admin.fetch('/api/aggregate/transactions?metric=count&metric=total,sum:amount_usd&group_by=investors.name&limit=5&format=csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    const lines = (await response.text()).trim().split('\n');
    expect(lines[0]).toBe('investors_name,count,total');
    expect(lines).toHaveLength(json.page.total + 1);
    expect(new Set(lines).size).toBe(lines.length);
    const empty = await admin.fetch('/api/aggregate/transactions?metric=count&group_by=round_type&filter=round_type:none&format=csv');
    expect((await empty.text()).trim()).toBe('round_type,count');
  });
});
