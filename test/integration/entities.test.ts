// Entities end to end over real HTTP: REST envelope, errors, and GraphQL on the same data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
// Every /api and /graphql request needs a token and the three headers.
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  const tag = await app.db.prisma.tag.create({ data: { name: 'Fintech', type: 'industry' } });
  for (let i = 1; i <= 3; i += 1) {
    await app.db.prisma.entity.create({
      data: {
        uuid: `00000000-0000-4000-8000-00000000000${i}`,
        slug: `company-${i}`,
        type: 'company',
        is_company: true,
        name: `Company ${i}`,
        launch_year: 2000 + i,
        hq_country: 'United States',
        tags: { create: [{ tag_id: tag.id }] },
      },
    });
  }
  const founder = await app.db.prisma.founder.create({
    data: { uuid: '00000000-0000-4000-8000-0000000000f1', slug: 'ada', name: 'Ada Founder' },
  });
  const first = await app.db.prisma.entity.findFirstOrThrow({ where: { slug: 'company-1' } });
  await app.db.prisma.founderCompany.create({ data: { founder_id: founder.id, entity_id: first.id } });
  await app.db.prisma.entity.update({ where: { slug: 'company-3' }, data: { deleted_at: new Date() } });
});

afterAll(async () => {
  await app.close();
});

describe('GET /api/entities', () => {
  it('returns the list envelope with every spec field', async () => {
    const response = await auth.fetch('/api/entities?limit=2');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json; charset=utf-8/);
    const body = await response.json();
    expect(body.page).toEqual({ limit: 2, offset: 0, next_cursor: expect.toBeOneOf([null, expect.any(String)]) });
    expect(body.data).toHaveLength(2);
    const [first] = body.data;
    expect(Object.keys(first).sort()).toEqual(
      [
        'id', 'uuid', 'type', 'is_company', 'is_investor', 'is_university', 'is_crowdfunding', 'is_government',
        'is_non_profit', 'is_founder', 'name', 'tagline', 'image', 'platform_url', 'website', 'external_ids', 'launch_year', 'hq_country',
        'hq_city', 'lat', 'lon', 'created_at', 'updated_at', 'deleted_at', 'tags', 'founders',
      ].sort(),
    );
    expect(first).toMatchObject({
      name: 'Company 1',
      launch_year: 2001,
      deleted_at: null,
      tags: [{ id: expect.any(Number), name: 'Fintech', type: 'industry' }],
      founders: [{ id: expect.any(Number), name: 'Ada Founder', image: '', platform_url: '' }],
    });
    expect(new Date(first.created_at).toISOString()).toBe(first.created_at);
  });

  it('leaves soft-deleted entities out and counts only when asked', async () => {
    const body = await (await auth.fetch('/api/entities?include_total=true')).json();
    expect(body.data.map((entity: { name: string }) => entity.name)).toEqual(['Company 1', 'Company 2']);
    expect(body.page.total).toBe(2);
  });

  it.each([
    ['limit=501', 'query.limit'],
    ['limit=0', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['offset=-1', 'query.offset'],
    ['include_total=yes', 'query.include_total'],
  ])('rejects %s with a details row', async (query, path) => {
    const response = await auth.fetch(`/api/entities?${query}`);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details).toEqual([{ path, message: expect.any(String) }]);
  });
});

describe('GET /api/entities/{id}', () => {
  it('returns one record', async () => {
    const { id } = await app.db.prisma.entity.findFirstOrThrow({ where: { slug: 'company-2' } });
    const response = await auth.fetch(`/api/entities/${id}`);
    expect(response.status).toBe(200);
    expect((await response.json()).data).toMatchObject({ id, name: 'Company 2' });
  });

  it('is 400 for a non-numeric id and 404 for a missing one', async () => {
    const bad = await auth.fetch('/api/entities/abc');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'path.id' }] });
    const missing = await auth.fetch('/api/entities/999999999');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    // Well-formed (^\d+$) but beyond any id: still a missing record, not a bad request.
    expect((await auth.fetch('/api/entities/99999999999999999999')).status).toBe(404);
    for (const bad of ['-1', '1.5', '1e3', '%20']) expect((await auth.fetch(`/api/entities/${bad}`)).status, bad).toBe(400);
  });
});

describe('transport rules', () => {
  it('is 404 for unknown paths and 405 with Allow for a wrong method', async () => {
    expect((await auth.fetch('/api/nothing-here')).status).toBe(404);
    const wrong = await auth.fetch('/api/entities', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect((await wrong.json()).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('echoes a valid X-Request-Id and makes one up otherwise', async () => {
    const echoed = await auth.fetch('/api/entities', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const made = await auth.fetch('/api/entities', { headers: { 'X-Request-Id': 'bad id\twith tab' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('POST /graphql', () => {
  it('answers the nested entity query with the same records as REST', async () => {
    const response = await auth.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ entities(limit: 2) { data { id name tags { name } founders { name } } page { limit } } }',
      }),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.entities.page).toEqual({ limit: 2 });
    expect(body.data.entities.data[0]).toMatchObject({ name: 'Company 1', tags: [{ name: 'Fintech' }], founders: [{ name: 'Ada Founder' }] });
  });

  it('reports list argument errors with a code', async () => {
    const response = await auth.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ entities(limit: 501) { data { id } } }' }),
    });
    const body = await response.json();
    expect(body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });
});
