// Nested GraphQL selections never cost a statement per row (no N+1): with Prisma's relationJoins the
// whole nested read is one statement, whatever the page size.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

const statements: string[] = [];
let app: TestApp;
// Every /api and /graphql request needs a token and the three headers.
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ onQuery: (sql) => statements.push(sql) });
  auth = await createApiKeyAndToken(app, { permissions: ['read:entities', 'read:founders'] });
  const tags = await Promise.all(
    ['AI', 'Fintech', 'Health'].map((name) => app.db.prisma.tag.create({ data: { name, type: 'industry' } })),
  );
  for (let i = 0; i < 25; i += 1) {
    const entity = await app.db.prisma.entity.create({
      data: {
        uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        slug: `e-${i}`,
        type: 'company',
        name: `Entity ${i}`,
        tags: { create: tags.slice(0, (i % 3) + 1).map((tag) => ({ tag_id: tag.id })) },
      },
    });
    const founder = await app.db.prisma.founder.create({
      data: { uuid: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`, slug: `f-${i}`, name: `Founder ${i}` },
    });
    await app.db.prisma.founderCompany.create({ data: { founder_id: founder.id, entity_id: entity.id } });
  }
});

afterAll(async () => {
  await app.close();
});

async function countStatements(query: string): Promise<{ count: number; body: { data?: unknown; errors?: unknown } }> {
  statements.length = 0;
  const response = await auth.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: unknown };
  return { count: statements.filter((sql) => /^\s*(SELECT|WITH)/i.test(sql)).length, body };
}

it('loads entities with their tags and founders in one statement, however many rows', async () => {
  const query = (limit: number) =>
    `{ entities(limit: ${limit}) { data { name tags { name } founders { name } } page { limit } } }`;
  const few = await countStatements(query(2));
  const many = await countStatements(query(25));
  expect(many.body.errors).toBeUndefined();
  const entities = (many.body.data as { entities: { data: { tags: unknown[]; founders: unknown[] }[] } }).entities.data;
  expect(entities).toHaveLength(25);
  expect(entities.every((entity) => entity.tags.length > 0 && entity.founders.length === 1)).toBe(true);
  // Joined in PostgreSQL (LATERAL + JSON aggregation). One query per row would be 1 + 4 × 25 = 101.
  expect(many.count).toBe(1);
  expect(few.count).toBe(many.count);
});

it('adds exactly one count statement when the total is selected', async () => {
  const without = await countStatements('{ entities(limit: 5) { data { id } } }');
  const withTotal = await countStatements('{ entities(limit: 5) { data { id } page { total } } }');
  expect(withTotal.count).toBe(without.count + 1);
});

it('answers a 3-level query (entity → founders → companies → entity) over 25 rows in one statement', async () => {
  const { count, body } = await countStatements(
    '{ entities(limit: 25) { data { name founders { name companies { entity { name tags { name } } } } } } }',
  );
  expect(body.errors).toBeUndefined();
  const entities = (body.data as { entities: { data: { name: string; founders: { companies: { entity: { name: string } }[] }[] }[] } }).entities.data;
  expect(entities).toHaveLength(25);
  // Each founder's company is the entity we started from: the nesting really went three levels down.
  expect(entities.every((entity) => entity.founders[0]!.companies[0]!.entity.name === entity.name)).toBe(true);
  expect(count).toBe(1);
});
