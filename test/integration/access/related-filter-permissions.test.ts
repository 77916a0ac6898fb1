/**
 * One rule for a filter that reaches a related resource (`investor__...` on entities): the caller needs
 * that resource's read permission, wherever the filter comes from (the request, or an ecosystem's
 * stored filter) and whatever is answered (rows, a total, an aggregate, a CSV export), on REST and
 * GraphQL alike: 403 naming the permission, nothing of the answer given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

const INVESTED = 'investor__total_invested_usd[gte]:1';

let app: TestApp;
let admin: TestCredentials;
/** read:entities and read:ecosystems, not read:investors. */
let noInvestors: TestCredentials;
/** The same with read:investors. */
let withInvestors: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 60, seed: 7 });
  admin = await createApiKeyAndToken(app);
  noInvestors = await createApiKeyAndToken(app, { permissions: ['read:entities', 'read:ecosystems'] });
  withInvestors = await createApiKeyAndToken(app, { permissions: ['read:entities', 'read:ecosystems', 'read:investors'] });
  for (const [slug, filter] of [['backed', INVESTED], ['plain', 'type:company']]) {
    const created = await admin.fetch('/api/ecosystems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug, name: slug, filter }),
    });
    expect(created.status).toBe(201);
  }
}, 120_000);

afterAll(async () => app?.close());

async function refused(client: TestCredentials, path: string): Promise<void> {
  const response = await client.fetch(path);
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(403);
  const body = JSON.parse(text);
  expect(body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('read:investors') });
  expect(body).not.toHaveProperty('data');
}

/** A list's `page.total`, or an ungrouped count aggregate's one count. */
async function total(client: TestCredentials, path: string): Promise<number> {
  const response = await client.fetch(path);
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  const body = JSON.parse(text);
  return path.includes('aggregate') ? body.data[0].count : body.page.total;
}

const BY_REQUEST = encodeURIComponent(INVESTED);

describe('a filter given with the request', () => {
  it('needs read:investors for the rows, the total and the CSV export of the entity list', async () => {
    await refused(noInvestors, `/api/entities?filter=${BY_REQUEST}&include_total=true&limit=1`);
    await refused(noInvestors, `/api/entities?filter=${BY_REQUEST}&limit=1`);
    await refused(noInvestors, `/api/entities?filter=${BY_REQUEST}&format=csv`);
    await refused(noInvestors, `/api/ecosystems/plain/entities?filter=${BY_REQUEST}&include_total=true`);
    await refused(noInvestors, `/api/ecosystems/plain/aggregate?metric=count&filter=${BY_REQUEST}`);
    await refused(noInvestors, `/api/aggregate/entities?metric=count&filter=${BY_REQUEST}`);
    const backed = await total(withInvestors, `/api/entities?filter=${BY_REQUEST}&include_total=true&limit=1`);
    expect(backed).toBeGreaterThan(0);
    expect(await total(withInvestors, `/api/aggregate/entities?metric=count&filter=${BY_REQUEST}`)).toBe(backed);
    // Filters that stay on the entity need nothing more.
    expect(await total(noInvestors, '/api/entities?filter=type:company&include_total=true&limit=1')).toBeGreaterThan(0);
  });

  it('is refused on GraphQL the same way', async () => {
    const { status, body } = await noInvestors.graphql(`{ entities(filter: "${INVESTED}", limit: 1) { data { id } page { total } } }`);
    expect(status).toBe(200);
    expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(body.data?.entities ?? null).toBeNull();
  });
});

describe("an ecosystem's stored filter", () => {
  it("needs read:investors for the ecosystem's entities, their total and its aggregate", async () => {
    await refused(noInvestors, '/api/ecosystems/backed/aggregate?metric=count');
    await refused(noInvestors, '/api/ecosystems/backed/aggregate?metric=count&group_by=hq_country');
    await refused(noInvestors, '/api/ecosystems/backed/entities?include_total=true&limit=1');
    await refused(noInvestors, '/api/ecosystems/backed/entities?limit=1');
    const listed = await total(withInvestors, '/api/ecosystems/backed/entities?include_total=true&limit=1');
    expect(listed).toBe(await total(withInvestors, `/api/entities?filter=${BY_REQUEST}&include_total=true&limit=1`));
    expect(await total(withInvestors, '/api/ecosystems/backed/aggregate?metric=count')).toBe(listed);
    // An ecosystem whose stored filter stays on the entity is open to the same token.
    expect(await total(noInvestors, '/api/ecosystems/plain/aggregate?metric=count')).toBeGreaterThan(0);
  });

  it('is refused on GraphQL the same way', async () => {
    for (const query of [
      '{ ecosystemAggregate(ecosystem: "backed", metrics: ["count"]) { data page { total } } }',
      '{ ecosystemEntities(ecosystem: "backed", limit: 1) { data { id } page { total } } }',
    ]) {
      const { body } = await noInvestors.graphql(query);
      expect(body.errors?.[0]?.extensions?.code, query).toBe('FORBIDDEN');
      expect(body.errors?.[0]?.message, query).toContain('read:investors');
      expect(Object.values(body.data ?? {}).filter((value) => value !== null), query).toEqual([]);
    }
  });
});
