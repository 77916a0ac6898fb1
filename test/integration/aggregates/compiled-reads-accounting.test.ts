/**
 * Aggregates are answered by one statement of their own (src/aggregate/statement.ts): /metrics counts
 * them neither as compiled reads nor as fallbacks (docs/compiled-reads.md), on REST and GraphQL. Beside a
 * list in one operation, an aggregate does leave that list to the resolvers: that is a `root_field` fallback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { compiledReadsMovedBy } from '../../helpers/compiled-reads.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 60, seed: 3 });
  auth = await createApiKeyAndToken(app);
  const created = await auth.fetch('/api/ecosystems', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ slug: 'counted', name: 'Counted', filter: 'launch_year[gte]:2000' }),
  });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => app?.close());

const NOTHING = { compiled: 0, direct: 0, fallbacks: {} };

async function restOk(path: string): Promise<void> {
  const response = await auth.fetch(path);
  expect(response.status, await response.clone().text()).toBe(200);
  expect(((await response.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
}

async function graphqlOk(query: string): Promise<void> {
  const { status, body } = await auth.graphql(query);
  expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
}

describe('aggregates on /metrics', () => {
  it('REST aggregates count as neither a compiled read nor a fallback', async () => {
    expect(await compiledReadsMovedBy(app, () => restOk('/api/aggregate/transactions?metric=count&group_by=round_type'))).toEqual(NOTHING);
    expect(await compiledReadsMovedBy(app, () => restOk('/api/ecosystems/counted/aggregate?metric=count&group_by=hq_country'))).toEqual(NOTHING);
  });

  it('a GraphQL operation of aggregate fields only counts as neither', async () => {
    const moved = await compiledReadsMovedBy(app, () =>
      graphqlOk(`{
        a: aggregate(source: "entities", metrics: ["count"], groupBy: "hq_country") { data }
        b: ecosystemAggregate(ecosystem: "counted", metrics: ["count"]) { data page { total } }
      }`),
    );
    expect(moved).toEqual(NOTHING);
  });

  it('an aggregate beside a list leaves the list to the resolvers: one root_field fallback', async () => {
    const moved = await compiledReadsMovedBy(app, () =>
      graphqlOk('{ aggregate(source: "entities", metrics: ["count"]) { data } entities(limit: 2) { data { id } } }'),
    );
    expect(moved).toEqual({ compiled: 0, direct: 0, fallbacks: { root_field: 1 } });
  });

  it('the list alone is still a compiled read (the counters move)', async () => {
    expect(await compiledReadsMovedBy(app, () => graphqlOk('{ entities(limit: 2) { data { id } } }'))).toEqual({ compiled: 1, direct: 0, fallbacks: {} });
  });
});
