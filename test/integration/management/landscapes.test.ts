// Landscapes: created inside an ecosystem, read, their entity list replaced atomically, deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call, detailPaths } from './support.ts';

let app: TestApp;
let curator: TestCredentials;
let outsider: TestCredentials;
let entityIds: number[];

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 40 });
  curator = await createApiKeyAndToken(app, { permissions: ['read:ecosystems', 'write:ecosystems'] });
  outsider = await createApiKeyAndToken(app, { permissions: ['read:ecosystems', 'write:ecosystems'], org: 'other-org' });
  const rows = await app.db.prisma.entity.findMany({ where: { deleted_at: null }, select: { id: true }, orderBy: { id: 'asc' }, take: 20 });
  entityIds = rows.map((row) => row.id);
});

afterAll(async () => {
  await app.close();
});

let counter = 0;
async function newEcosystem(credentials = curator): Promise<{ id: number; slug: string }> {
  const slug = `landscape-home-${++counter}`;
  const { status, body } = await call(credentials, 'POST', '/api/ecosystems', { slug, name: 'Home', filter: 'is_company:true' });
  expect(status).toBe(201);
  return body.data;
}

async function newLandscape(body: Record<string, unknown> = {}): Promise<{ id: number; ecosystem_id: number }> {
  const ecosystem = await newEcosystem();
  const response = await call(curator, 'POST', `/api/ecosystems/${ecosystem.id}/landscapes`, { name: 'Fintech', ...body });
  expect(response.status).toBe(201);
  return response.body.data;
}

const entitiesOf = async (id: number): Promise<number[]> =>
  (await call(curator, 'GET', `/api/landscapes/${id}`)).body.data.entities.map((entity: { id: number }) => entity.id);

describe('POST and GET landscapes', () => {
  it('creates one in an ecosystem (by id or slug) and reads it back with the spec’s fields', async () => {
    const ecosystem = await newEcosystem();
    const created = await call(curator, 'POST', `/api/ecosystems/${ecosystem.slug}/landscapes`, {
      name: 'Payments',
      description: 'Who moves money',
      sort_order: 2,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      ecosystem_id: ecosystem.id,
      name: 'Payments',
      description: 'Who moves money',
      sort_order: 2,
      entities: [],
    });
    expect((await call(curator, 'GET', `/api/landscapes/${created.body.data.id}`)).body.data).toEqual(created.body.data);
    const list = await call(curator, 'GET', `/api/ecosystems/${ecosystem.id}/landscapes?include_total=true`);
    expect(list.body).toEqual({ data: [created.body.data], page: { limit: 25, offset: 0, total: 1, next_cursor: null } });
  });

  it('validates the body', async () => {
    const ecosystem = await newEcosystem();
    const response = await call(curator, 'POST', `/api/ecosystems/${ecosystem.id}/landscapes`, { name: '', extra: 1 });
    expect(response.status).toBe(400);
    expect(detailPaths(response.body)).toEqual(['body.extra', 'body.name']);
  });

  it('404s in another organisation’s or a deleted ecosystem', async () => {
    const landscape = await newLandscape();
    expect((await call(outsider, 'GET', `/api/landscapes/${landscape.id}`)).status).toBe(404);
    expect((await call(outsider, 'GET', `/api/ecosystems/${landscape.ecosystem_id}/landscapes`)).status).toBe(404);
    expect((await call(outsider, 'POST', `/api/ecosystems/${landscape.ecosystem_id}/landscapes`, { name: 'x' })).status).toBe(404);
    expect((await call(outsider, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: [] })).status).toBe(404);
    expect((await call(outsider, 'DELETE', `/api/landscapes/${landscape.id}`)).status).toBe(404);
    await call(curator, 'DELETE', `/api/ecosystems/${landscape.ecosystem_id}`);
    expect((await call(curator, 'GET', `/api/landscapes/${landscape.id}`)).status).toBe(404);
  });
});

describe('PUT /api/landscapes/{id}/entities', () => {
  it('replaces the list in the given order; duplicates collapse to the first', async () => {
    const landscape = await newLandscape();
    const [a, b, c, d] = entityIds as [number, number, number, number];
    const response = await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: [c, a, c, b, a] });
    expect(response.status).toBe(200);
    expect(response.body.data.entities.map((entity: { id: number }) => entity.id)).toEqual([c, a, b]);
    expect(Object.keys(response.body.data.entities[0]).sort()).toEqual(['id', 'image', 'name', 'tagline']);
    await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: [d, b] });
    expect(await entitiesOf(landscape.id)).toEqual([d, b]);
    await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: [] });
    expect(await entitiesOf(landscape.id)).toEqual([]);
  });

  it('refuses unknown ids with 400 naming them, and changes nothing', async () => {
    const landscape = await newLandscape();
    const [a, b] = entityIds as [number, number];
    await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: [a, b] });
    const response = await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: [b, 999_999, a, 888_888] });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details).toEqual([{ path: 'body.entity_ids', message: expect.stringContaining('999999, 888888') }]);
    expect(await entitiesOf(landscape.id)).toEqual([a, b]);
  });

  it.each([
    [{}, ['body.entity_ids']],
    [{ entity_ids: 'all' }, ['body.entity_ids']],
    [{ entity_ids: [1, 'x'] }, ['body.entity_ids.1']],
    [{ entity_ids: [0] }, ['body.entity_ids.0']],
  ])('refuses the body %j', async (body, paths) => {
    const landscape = await newLandscape();
    const response = await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, body);
    expect(response.status).toBe(400);
    expect(detailPaths(response.body)).toEqual(paths);
  });

  it('leaves exactly one whole list after concurrent replacements', async () => {
    const landscape = await newLandscape();
    const lists = Array.from({ length: 8 }, (_, index) =>
      entityIds.slice(index, index + 10).concat(index % 2 ? [] : entityIds.slice(0, 3)),
    ).map((ids) => [...new Set(ids)]);
    const responses = await Promise.all(
      lists.map((entity_ids) => call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids })),
    );
    for (const response of responses) expect(response.status).toBe(200);
    const final = await entitiesOf(landscape.id);
    expect(lists).toContainEqual(final);
    const positions = await app.db.prisma.landscapeEntity.findMany({ where: { landscape_id: landscape.id }, orderBy: { position: 'asc' } });
    expect(positions.map((row) => row.position)).toEqual(final.map((_, index) => index));
  });
});

describe('DELETE /api/landscapes/{id}', () => {
  it('deletes it and its entity list', async () => {
    const landscape = await newLandscape();
    await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: entityIds.slice(0, 3) });
    const response = await call(curator, 'DELETE', `/api/landscapes/${landscape.id}`);
    expect(response.status).toBe(204);
    expect((await call(curator, 'GET', `/api/landscapes/${landscape.id}`)).status).toBe(404);
    expect(await app.db.prisma.landscapeEntity.count({ where: { landscape_id: landscape.id } })).toBe(0);
  });
});

describe('GraphQL', () => {
  it('creates, fills, reads and deletes a landscape', async () => {
    const ecosystem = await newEcosystem();
    const created = await curator.graphql(
      `mutation { createLandscape(ecosystem: "${ecosystem.slug}", name: "AI") { id ecosystem_id entities { id } } }`,
    );
    expect(created.body.errors).toBeUndefined();
    const landscape = created.body.data!.createLandscape as { id: number; ecosystem_id: number };
    expect(landscape.ecosystem_id).toBe(ecosystem.id);
    const [a, b] = entityIds as [number, number];
    const set = await curator.graphql(`mutation { setLandscapeEntities(id: ${landscape.id}, entity_ids: [${b}, ${a}, ${b}]) { entities { id } } }`);
    expect(set.body.data).toEqual({ setLandscapeEntities: { entities: [{ id: b }, { id: a }] } });
    const unknown = await curator.graphql(`mutation { setLandscapeEntities(id: ${landscape.id}, entity_ids: [${a}, 777777]) { id } }`);
    expect(unknown.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'entity_ids' }] });
    const read = await curator.graphql(`{ landscapes(ecosystem: "${ecosystem.id}") { data { id } } landscape(id: ${landscape.id}) { entities { id } } }`);
    expect(read.body.data).toEqual({ landscapes: { data: [{ id: landscape.id }] }, landscape: { entities: [{ id: b }, { id: a }] } });
    expect((await curator.graphql(`mutation { deleteLandscape(id: ${landscape.id}) }`)).body.data).toEqual({ deleteLandscape: true });
  });
});

describe('retries', () => {
  it('a repeated DELETE is 404 and touches nothing else', async () => {
    const landscape = await newLandscape();
    const neighbour = await call(curator, 'POST', `/api/ecosystems/${landscape.ecosystem_id}/landscapes`, { name: 'Neighbour' });
    await call(curator, 'PUT', `/api/landscapes/${neighbour.body.data.id}/entities`, { entity_ids: entityIds.slice(0, 3) });
    const before = await call(curator, 'GET', `/api/landscapes/${neighbour.body.data.id}`);
    expect((await call(curator, 'DELETE', `/api/landscapes/${landscape.id}`)).status).toBe(204);
    const retry = await call(curator, 'DELETE', `/api/landscapes/${landscape.id}`);
    expect(retry.status).toBe(404);
    expect(retry.body.error.code).toBe('NOT_FOUND');
    const graphql = await curator.graphql(`mutation { deleteLandscape(id: ${landscape.id}) }`);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await call(curator, 'GET', `/api/landscapes/${neighbour.body.data.id}`)).body).toEqual(before.body);
  });

  it('two DELETEs at once: one 204, one 404', async () => {
    const landscape = await newLandscape();
    const statuses = await Promise.all([1, 2].map(() => call(curator, 'DELETE', `/api/landscapes/${landscape.id}`).then((response) => response.status)));
    expect(statuses.sort()).toEqual([204, 404]);
  });

  it('PUT of the same list twice gives the same landscape', async () => {
    const landscape = await newLandscape();
    const body = { entity_ids: [entityIds[4], entityIds[1], entityIds[4], entityIds[2]] };
    const first = await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, body);
    const second = await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, body);
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(await entitiesOf(landscape.id)).toEqual([entityIds[4], entityIds[1], entityIds[2]]);
  });

  it('a PUT after the landscape is deleted is 404 and creates nothing', async () => {
    const landscape = await newLandscape();
    await call(curator, 'DELETE', `/api/landscapes/${landscape.id}`);
    const response = await call(curator, 'PUT', `/api/landscapes/${landscape.id}/entities`, { entity_ids: entityIds.slice(0, 2) });
    expect(response.status).toBe(404);
    expect(await app.db.prisma.landscapeEntity.count({ where: { landscape_id: landscape.id } })).toBe(0);
  });
});
