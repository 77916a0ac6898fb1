// Navigating a relation needs the permission of the resource it reaches (TYPE_RULES), on both
// transports; the summaries other records embed come with the embedding record's permission.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken } from '../../helpers/auth.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 60 });
});

afterAll(async () => {
  await app.close();
});

const only = (permission: string) => createApiKeyAndToken(app, { permissions: [permission] });

describe('with read:entities only', () => {
  it('reads entities with their founder summaries', async () => {
    const client = await only('read:entities');
    const { status, body } = await client.graphql('{ entities(limit: 3) { data { id name founders { id name image platform_url } } } }');
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });

  it.each([
    ['rounds { id }', 'read:transactions'],
    ['valuations { id }', 'read:valuations'],
    ['news { id }', 'read:news'],
    ['investors { id }', 'read:investors'],
    ['investor_profile { id }', 'read:investors'],
    ['founders { education { degree } }', 'read:founders'],
  ])('refuses entity → %s without %s', async (selection, permission) => {
    const client = await only('read:entities');
    const { status, body } = await client.graphql(`{ entities(limit: 3) { data { id ${selection} } } }`);
    expect(status).toBe(403);
    expect(body.data ?? undefined).toBeUndefined();
    expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(body.errors?.[0]?.message).toContain(permission);
  });
});

describe('with read:transactions only', () => {
  it("reads rounds with their entity's id and name, over REST and GraphQL", async () => {
    const client = await only('read:transactions');
    expect((await client.fetch('/api/transactions?limit=3')).status).toBe(200);
    const { status } = await client.graphql('{ transactions(limit: 3) { data { id entity { id name } investors { id name is_lead } } } }');
    expect(status).toBe(200);
  });

  it('refuses the entity beyond its summary, and the investor profiles', async () => {
    const client = await only('read:transactions');
    const entity = await client.graphql('{ transactions(limit: 3) { data { entity { tags { name } } } } }');
    expect(entity.status).toBe(403);
    expect(entity.body.errors?.[0]?.message).toContain('read:entities');
    const investor = await client.graphql('{ transactions(limit: 3) { data { investors { investor { total_invested_usd } } } } }');
    expect(investor.status).toBe(403);
    expect(investor.body.errors?.[0]?.message).toContain('read:investors');
  });
});

it.each([
  ['/api/entities', 'read:entities'],
  ['/api/investors', 'read:investors'],
  ['/api/founders', 'read:founders'],
  ['/api/transactions', 'read:transactions'],
  ['/api/valuations', 'read:valuations'],
  ['/api/news', 'read:news'],
  ['/api/filters/founders', 'read:founders'],
])('%s answers with %s alone', async (path, permission) => {
  const client = await only(permission);
  // The filter descriptions take no paging parameters.
  const response = await client.fetch(path.startsWith('/api/filters/') ? path : `${path}?limit=2`);
  expect(response.status).toBe(200);
});
