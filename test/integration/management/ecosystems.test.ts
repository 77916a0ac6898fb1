// Ecosystems over REST and GraphQL: create, read by id or slug, list, patch, delete, and the entities
// a stored filter selects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call, detailPaths } from './support.ts';

let app: TestApp;
let curator: TestCredentials;
let outsider: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 60 });
  curator = await createApiKeyAndToken(app, { permissions: ['read:ecosystems', 'write:ecosystems', 'read:entities'] });
  outsider = await createApiKeyAndToken(app, { permissions: ['read:ecosystems', 'write:ecosystems', 'read:entities'], org: 'other-org' });
});

afterAll(async () => {
  await app.close();
});

const ECOSYSTEM_FIELDS = [
  'id', 'slug', 'name', 'description', 'filter', 'region', 'image_url', 'partner_logos', 'tabs_config', 'is_active', 'sort_order',
].sort();

let counter = 0;
const slug = (base = 'eco') => `${base}-${++counter}`;

async function create(body: Record<string, unknown>, credentials = curator) {
  return call(credentials, 'POST', '/api/ecosystems', { slug: slug(), name: 'Berlin', filter: 'hq_country:Germany', ...body });
}

describe('POST /api/ecosystems', () => {
  it('creates an active ecosystem with every field of the spec', async () => {
    const partner_logos = [{ name: 'Acme', url: 'https://acme.example', image_url: 'https://acme.example/logo.png' }];
    const { status, body } = await create({
      slug: 'berlin-tech',
      description: 'Startups in Berlin',
      region: 'Europe',
      image_url: 'https://example.com/berlin.png',
      partner_logos,
      tabs_config: { tabs: ['overview', 'deals'], default: 'overview' },
      sort_order: 3,
    });
    expect(status).toBe(201);
    expect(Object.keys(body.data).sort()).toEqual(ECOSYSTEM_FIELDS);
    expect(body.data).toMatchObject({
      slug: 'berlin-tech',
      name: 'Berlin',
      filter: 'hq_country:Germany',
      description: 'Startups in Berlin',
      region: 'Europe',
      partner_logos,
      tabs_config: { tabs: ['overview', 'deals'], default: 'overview' },
      is_active: true,
      sort_order: 3,
    });
    const read = await call(curator, 'GET', `/api/ecosystems/${body.data.id}`);
    expect(read.body.data).toEqual(body.data);
  });

  it('fills the optional fields with empty values', async () => {
    const { status, body } = await create({});
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ description: '', region: '', image_url: '', partner_logos: [], tabs_config: {}, sort_order: 0 });
  });

  const invalid: [string, unknown, string[]][] = [
    ['nothing', {}, ['body.filter', 'body.name', 'body.slug']],
    ['an upper-case slug', { slug: 'Berlin', name: 'B', filter: 'hq_country:Germany' }, ['body.slug']],
    ['a slug with a space', { slug: 'a b', name: 'B', filter: 'hq_country:Germany' }, ['body.slug']],
    ['a 101-character slug', { slug: 'a'.repeat(101), name: 'B', filter: 'hq_country:Germany' }, ['body.slug']],
    ['an empty name', { slug: 'ok', name: '', filter: 'hq_country:Germany' }, ['body.name']],
    ['a 201-character name', { slug: 'ok', name: 'n'.repeat(201), filter: 'hq_country:Germany' }, ['body.name']],
    ['is_active', { slug: 'ok', name: 'B', filter: 'hq_country:Germany', is_active: false }, ['body.is_active']],
    ['an unknown field', { slug: 'ok', name: 'B', filter: 'hq_country:Germany', colour: 'red' }, ['body.colour']],
    ['a string sort_order', { slug: 'ok', name: 'B', filter: 'hq_country:Germany', sort_order: '1' }, ['body.sort_order']],
    ['partner logos as an object', { slug: 'ok', name: 'B', filter: 'hq_country:Germany', partner_logos: {} }, ['body.partner_logos']],
    ['tabs_config as an array', { slug: 'ok', name: 'B', filter: 'hq_country:Germany', tabs_config: [] }, ['body.tabs_config']],
    ['a JSON array', [], ['body']],
  ];

  it.each(invalid)('refuses %s with 400 naming each field, and stores nothing', async (_name, body, paths) => {
    const before = await app.db.prisma.ecosystem.count();
    const response = await call(curator, 'POST', '/api/ecosystems', body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(detailPaths(response.body)).toEqual(paths);
    expect(await app.db.prisma.ecosystem.count()).toBe(before);
  });

  it.each([
    ['launch_year[gte:2020', 'FILTER_PARSE_ERROR'],
    ['launch_yeer:2020', 'UNKNOWN_FILTER'],
    ['is_unicorn[gt]:true', 'UNSUPPORTED_OPERATOR'],
    ['launch_year:abc', 'FILTER_VALIDATION_ERROR'],
  ])('refuses the filter %s with %s at body.filter', async (filter, code) => {
    const response = await create({ filter });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(detailPaths(response.body)).toEqual(['body.filter']);
  });

  it('keeps slugs unique in an organisation (409) and free across organisations', async () => {
    const taken = slug('taken');
    expect((await create({ slug: taken })).status).toBe(201);
    const again = await create({ slug: taken });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect((await create({ slug: taken }, outsider)).status).toBe(201);
  });
});

describe('GET /api/ecosystems and /api/ecosystems/{id}', () => {
  it('reads by id and by slug, and 404s another organisation’s', async () => {
    const { body } = await create({ slug: 'munich' });
    expect((await call(curator, 'GET', '/api/ecosystems/munich')).body.data.id).toBe(body.data.id);
    expect((await call(outsider, 'GET', `/api/ecosystems/${body.data.id}`)).status).toBe(404);
    expect((await call(outsider, 'GET', '/api/ecosystems/munich')).status).toBe(404);
  });

  it('refuses a key that is neither an id nor a slug', async () => {
    const response = await call(curator, 'GET', '/api/ecosystems/Not%20A%20Slug');
    expect(response.status).toBe(400);
    expect(detailPaths(response.body)).toEqual(['path.id']);
  });

  it('lists the active ones of the caller’s organisation by sort_order, with paging and total', async () => {
    const own = await create({ sort_order: -100 });
    const theirs = await create({}, outsider);
    const page = await call(curator, 'GET', '/api/ecosystems?limit=2000&include_total=true');
    expect(page.status).toBe(200);
    const ids = page.body.data.map((row: { id: number }) => row.id);
    expect(ids[0]).toBe(own.body.data.id);
    expect(ids).not.toContain(theirs.body.data.id);
    expect(page.body.page).toEqual({ limit: 2000, offset: 0, total: ids.length, next_cursor: null });
    expect((await call(curator, 'GET', '/api/ecosystems?limit=2001')).status).toBe(400);
    expect((await call(curator, 'GET', '/api/ecosystems?limt=5')).status).toBe(400);
  });
});

describe('PATCH and DELETE /api/ecosystems/{id}', () => {
  it('changes only the fields given', async () => {
    const { body } = await create({ description: 'before', region: 'EU' });
    const patched = await call(curator, 'PATCH', `/api/ecosystems/${body.data.id}`, { description: 'after', filter: 'launch_year[gte]:2010' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ ...body.data, description: 'after', filter: 'launch_year[gte]:2010' });
  });

  it('changes nothing when one value is bad', async () => {
    const { body } = await create({});
    const response = await call(curator, 'PATCH', `/api/ecosystems/${body.data.id}`, { name: 'New name', filter: 'nope:' });
    expect(response.status).toBe(400);
    expect((await call(curator, 'GET', `/api/ecosystems/${body.data.id}`)).body.data).toEqual(body.data);
  });

  it('409s a slug another active ecosystem has', async () => {
    const first = await create({});
    const second = await create({});
    const response = await call(curator, 'PATCH', `/api/ecosystems/${second.body.data.id}`, { slug: first.body.data.slug });
    expect(response.status).toBe(409);
  });

  it('deactivates: then 404, out of the list, and its slug free again', async () => {
    const { body } = await create({});
    const id = body.data.id;
    const deleted = await call(curator, 'DELETE', `/api/ecosystems/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await call(curator, 'GET', `/api/ecosystems/${id}`)).status).toBe(404);
    expect((await call(curator, 'DELETE', `/api/ecosystems/${id}`)).status).toBe(404);
    expect((await call(curator, 'PATCH', `/api/ecosystems/${id}`, { name: 'x' })).status).toBe(404);
    const list = await call(curator, 'GET', '/api/ecosystems?limit=2000');
    expect(list.body.data.map((row: { id: number }) => row.id)).not.toContain(id);
    expect((await app.db.prisma.ecosystem.findUniqueOrThrow({ where: { id } })).is_active).toBe(false);
    expect((await create({ slug: body.data.slug })).status).toBe(201);
  });

  it('404s another organisation’s ecosystem on every verb, and changes nothing', async () => {
    const { body } = await create({});
    const path = `/api/ecosystems/${body.data.id}`;
    expect((await call(outsider, 'PATCH', path, { name: 'taken over' })).status).toBe(404);
    expect((await call(outsider, 'DELETE', path)).status).toBe(404);
    expect((await call(outsider, 'GET', `${path}/entities`)).status).toBe(404);
    expect((await call(curator, 'GET', path)).body.data).toEqual(body.data);
  });
});

describe('GET /api/ecosystems/{id}/entities', () => {
  it('lists exactly the entities the stored filter selects, with a client filter ANDed', async () => {
    const { body } = await create({ filter: 'is_company:true' });
    const all = await call(curator, 'GET', '/api/entities?filter=is_company:true&limit=500&fields=id');
    const inside = await call(curator, 'GET', `/api/ecosystems/${body.data.slug}/entities?limit=500&fields=id&include_total=true`);
    expect(inside.status).toBe(200);
    expect(inside.body.data).toEqual(all.body.data);
    expect(inside.body.page.total).toBe(all.body.data.length);

    const narrowed = await call(curator, 'GET', `/api/ecosystems/${body.data.id}/entities?filter=launch_year[gte]:2000&limit=500&fields=id`);
    const expected = await call(curator, 'GET', '/api/entities?filter=and(is_company:true,launch_year[gte]:2000)&limit=500&fields=id');
    expect(narrowed.body.data).toEqual(expected.body.data);
    expect(narrowed.body.data.length).toBeLessThan(inside.body.data.length);
  });

  it('pages by cursor through the same rows as one big page', async () => {
    const { body } = await create({ filter: 'is_company:true' });
    const path = `/api/ecosystems/${body.data.id}/entities`;
    const whole = await call(curator, 'GET', `${path}?sort=-launch_year&limit=500&fields=id`);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: number }[]; page: { next_cursor: string | null } } } = await call(
        curator,
        'GET',
        `${path}?sort=-launch_year&limit=7&fields=id${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...page.body.data.map((row) => row.id));
      cursor = page.body.page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(whole.body.data.map((row: { id: number }) => row.id));
  });

  it('needs read:entities as well as read:ecosystems', async () => {
    const { body } = await create({});
    const reader = await createApiKeyAndToken(app, { permissions: ['read:ecosystems'] });
    const response = await call(reader, 'GET', `/api/ecosystems/${body.data.id}/entities`);
    expect(response.status).toBe(403);
    expect(response.body.error.message).toContain('read:entities');
  });
});

describe('GraphQL', () => {
  it('creates, reads, updates and deletes with the same rules', async () => {
    const created = await curator.graphql(
      'mutation($slug: String!) { createEcosystem(slug: $slug, name: "G", filter: "hq_country:Germany", tabs_config: {a: 1}) { id slug tabs_config is_active } }',
      { slug: 'graphql-eco' },
    );
    expect(created.body.errors).toBeUndefined();
    const id = (created.body.data!.createEcosystem as { id: number }).id;
    expect(created.body.data!.createEcosystem).toEqual({ id, slug: 'graphql-eco', tabs_config: { a: 1 }, is_active: true });

    const bad = await curator.graphql('mutation { updateEcosystem(id: "graphql-eco", slug: "Bad Slug") { id } }');
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'slug' }] });

    const updated = await curator.graphql('mutation { updateEcosystem(id: "graphql-eco", name: "Renamed") { name } }');
    expect(updated.body.data!.updateEcosystem).toEqual({ name: 'Renamed' });
    const read = await curator.graphql(`{ ecosystem(id: "${id}") { name } ecosystems(limit: 1) { page { limit } } }`);
    expect(read.body.data!.ecosystem).toEqual({ name: 'Renamed' });

    const entities = await curator.graphql('{ ecosystemEntities(ecosystem: "graphql-eco", limit: 3) { data { hq_country } } }');
    expect(entities.body.errors).toBeUndefined();
    const rows = (entities.body.data!.ecosystemEntities as { data: { hq_country: string }[] }).data;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.hq_country).toBe('Germany');

    expect((await curator.graphql('mutation { deleteEcosystem(id: "graphql-eco") }')).body.data).toEqual({ deleteEcosystem: true });
    expect((await curator.graphql(`{ ecosystem(id: "${id}") { id } }`)).body.data).toEqual({ ecosystem: null });
  });

  it('refuses writes without write:ecosystems', async () => {
    const reader = await createApiKeyAndToken(app, { permissions: ['read:ecosystems'] });
    const response = await reader.graphql('mutation { createEcosystem(slug: "x", name: "x", filter: "x:1") { id } }');
    expect(response.status).toBe(403);
    expect(response.body.errors?.[0]?.message).toContain('write:ecosystems');
  });
});

describe('free-form fields are stored exactly as sent, or refused', () => {
  /** 16 levels deep with tabs_config itself: the most FREE_FORM_LIMITS takes. */
  const nested = (levels: number): unknown => (levels === 0 ? 'bottom' : { level: nested(levels - 1) });
  const tabs = {
    constructor: { prototype: 1 },
    prototype: [1, { constructor: null }],
    toString: 'x',
    hasOwnProperty: false,
    $type: 'DateTime',
    value: '2020-01-01',
    // Prisma's own value tags, below the top level, where its escape for them is not undone.
    tagged: { inner: { $type: 'Raw', value: 1 }, list: [{ $type: 'Decimal', value: '1.5' }, [{ $type: 'Json', value: '{}' }]] },
    '': 'an empty key',
    'dotted.key': [[], {}, [null]],
    text: 'emoji 😀, é, "quotes", \\ and a\nnew line',
    numbers: [0, -1, 1.5, 1e-7, 9007199254740991, -9007199254740991],
    deep: nested(15),
  };
  const partner_logos = [
    { name: 'Acme', url: 'https://acme.example/?a=1&b=2#top', image_url: 'http://acme.example/logo.png' },
    { name: '', url: '', image_url: '' },
  ];

  it('round-trips prototype-like keys, empty keys and deep values over REST and GraphQL', async () => {
    const { status, body } = await create({ tabs_config: tabs, partner_logos });
    expect(status).toBe(201);
    expect(body.data.tabs_config).toEqual(tabs);
    expect(body.data.partner_logos).toEqual(partner_logos);
    const read = await call(curator, 'GET', `/api/ecosystems/${body.data.id}`);
    expect(read.body.data.tabs_config).toEqual(tabs);
    expect(read.body.data.partner_logos).toEqual(partner_logos);
    const graphql = await curator.graphql(`{ ecosystem(id: "${body.data.id}") { tabs_config partner_logos { name url image_url } } }`);
    expect(graphql.body.data).toEqual({ ecosystem: { tabs_config: tabs, partner_logos } });

    const patched = await call(curator, 'PATCH', `/api/ecosystems/${body.data.id}`, { tabs_config: { constructor: 'only' } });
    expect(patched.body.data.tabs_config).toEqual({ constructor: 'only' });

    const viaGraphql = await curator.graphql(
      'mutation($slug: String!, $t: JSON, $p: JSON) { createEcosystem(slug: $slug, name: "G", filter: "is_company:true", tabs_config: $t, partner_logos: $p) { id tabs_config partner_logos { name url image_url } } }',
      { slug: slug('free-form'), t: tabs, p: partner_logos },
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    const made = viaGraphql.body.data!.createEcosystem as { id: number };
    expect(made).toEqual({ id: made.id, tabs_config: tabs, partner_logos });
    expect((await call(curator, 'GET', `/api/ecosystems/${made.id}`)).body.data.tabs_config).toEqual(tabs);
  });

  it('round-trips a GraphQL literal with prototype-like keys', async () => {
    const response = await curator.graphql(
      `mutation { createEcosystem(slug: "${slug('literal')}", name: "L", filter: "is_company:true", tabs_config: {constructor: {prototype: [1, "a"]}, toString: null}) { id tabs_config } }`,
    );
    expect(response.body.errors).toBeUndefined();
    const made = response.body.data!.createEcosystem as { id: number; tabs_config: unknown };
    expect(made.tabs_config).toEqual({ constructor: { prototype: [1, 'a'] }, toString: null });
    expect((await call(curator, 'GET', `/api/ecosystems/${made.id}`)).body.data.tabs_config).toEqual(made.tabs_config);
  });

  const refusedBodies: [string, string, string][] = [
    ['a "__proto__" key', '{"__proto__": {"admin": true}, "a": 1}', 'body.tabs_config.__proto__'],
    ['a nested "__proto__" key', '{"a": [{"b": {"__proto__": 1}}]}', 'body.tabs_config.a.0.b.__proto__'],
    ['a number JSON cannot hold (1e400)', '{"x": 1e400}', 'body.tabs_config.x'],
    ['an integer beyond 2^53', '{"x": 12345678901234567890}', 'body.tabs_config.x'],
    ['a lone surrogate', '{"x": "\\ud800"}', 'body.tabs_config.x'],
    ['a key with a NUL', '{"a\\u0000b": 1}', 'body.tabs_config.a\u0000b'],
    ['17 levels', JSON.stringify({ a: nested(16) }).replace(/"bottom"/, '1'), 'body.tabs_config'],
    ['an array', '[]', 'body.tabs_config'],
    ['1,001 values', JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_, index) => [`k${index}`, 0]))), 'body.tabs_config'],
    ['over 64 KiB', JSON.stringify({ a: 'x'.repeat(65_536) }), 'body.tabs_config'],
    ['3,000 levels', `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`, 'body'],
  ];

  it.each(refusedBodies)('refuses tabs_config with %s at its path (REST), storing nothing', async (_name, tabsConfig, path) => {
    const before = await app.db.prisma.ecosystem.count();
    const body = `{"slug": "${slug('refused')}", "name": "R", "filter": "is_company:true", "tabs_config": ${tabsConfig}}`;
    const response = await curator.fetch('/api/ecosystems', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = await response.json();
    expect(response.status).toBe(400);
    expect(answer.error.code).toBe('VALIDATION_ERROR');
    expect(answer.error.details.map((detail: { path: string }) => detail.path)).toEqual([path]);
    expect(await app.db.prisma.ecosystem.count()).toBe(before);

    const { body: existing } = await create({ tabs_config: { kept: true } });
    const patch = await curator.fetch(`/api/ecosystems/${existing.data.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: `{"tabs_config": ${tabsConfig}}`,
    });
    expect(patch.status).toBe(400);
    expect((await call(curator, 'GET', `/api/ecosystems/${existing.data.id}`)).body.data).toEqual(existing.data);
  });

  it.each([
    ['a "__proto__" key', '', '{__proto__: {admin: true}, a: 1}', {}, 'tabs_config.__proto__'],
    ['a missing variable (undefined)', '($missing: Int)', '{a: $missing, b: 1}', {}, 'tabs_config.a'],
    ['a float beyond a double (Infinity)', '', '{x: 1e400}', {}, 'tabs_config.x'],
    ['17 levels in a variable', '($deep: JSON)', '$deep', { deep: { a: nested(16) } }, 'tabs_config'],
  ])('refuses tabs_config with %s over GraphQL, storing nothing', async (_name, declarations, literal, variables, path) => {
    const before = await app.db.prisma.ecosystem.count();
    const response = await curator.graphql(
      `mutation${declarations} { createEcosystem(slug: "${slug('refused')}", name: "R", filter: "is_company:true", tabs_config: ${literal}) { id tabs_config } }`,
      variables,
    );
    // A field error over GraphQL (docs/graphql-errors.md): 200 with the mutation's field null.
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ createEcosystem: null });
    expect(response.body.errors?.[0]).toMatchObject({ path: ['createEcosystem'], extensions: { code: 'VALIDATION_ERROR', details: [{ path }] } });
    expect(await app.db.prisma.ecosystem.count()).toBe(before);
  });

  it('answers a GraphQL literal nested far beyond the limits with a 400, never a 5xx', async () => {
    const response = await curator.graphql(
      `mutation { createEcosystem(slug: "${slug('deep')}", name: "R", filter: "is_company:true", tabs_config: ${'{a:'.repeat(3000)}1${'}'.repeat(3000)}) { id } }`,
      undefined,
      { accept: 'application/graphql-response+json' },
    );
    expect(response.status).toBe(400);
  });

  it.each([
    ['an unknown key', { name: 'A', url: '', image_url: '', logo: 'x' }, 'body.partner_logos.0.logo'],
    ['a missing key', { name: 'A', url: '' }, 'body.partner_logos.0.image_url'],
    ['a string', 'Acme', 'body.partner_logos.0'],
  ])('refuses a partner logo with %s', async (_name, logo, path) => {
    const response = await create({ partner_logos: [logo] });
    expect(response.status).toBe(400);
    expect(detailPaths(response.body)).toEqual([path]);
  });

  it('refuses a "__proto__" key in a partner logo sent as a GraphQL literal', async () => {
    const response = await curator.graphql(
      `mutation { createEcosystem(slug: "${slug('logo')}", name: "L", filter: "is_company:true", partner_logos: [{name: "A", url: "", image_url: "", __proto__: {x: 1}}]) { id } }`,
    );
    expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'partner_logos.0.__proto__' }] });
  });
});

describe('URLs are http or https', () => {
  const refused = [
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'ftp://files.example/logo.png',
    '//evil.example/logo.png',
    '/relative/logo.png',
    'https://',
    ' https://acme.example',
    'https://acme.example/a b',
  ];

  it.each(refused)('refuses %j in image_url and in a partner logo’s url and image_url', async (url) => {
    const before = await app.db.prisma.ecosystem.count();
    const response = await create({ image_url: url, partner_logos: [{ name: 'A', url, image_url: url }] });
    expect(response.status).toBe(400);
    expect(detailPaths(response.body)).toEqual(['body.image_url', 'body.partner_logos.0.image_url', 'body.partner_logos.0.url']);
    expect(await app.db.prisma.ecosystem.count()).toBe(before);
    const graphql = await curator.graphql('mutation($u: String) { updateEcosystem(id: "nowhere", image_url: $u) { id } }', { u: url });
    expect(graphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'image_url' }] });
  });

  it('takes http and https URLs, and empty text for none', async () => {
    for (const url of ['', 'http://acme.example', 'HTTPS://ACME.EXAMPLE/Logo.png?size=2#x']) {
      const response = await create({ image_url: url, partner_logos: [{ name: 'A', url, image_url: url }] });
      expect(response.status).toBe(201);
      expect(response.body.data.image_url).toBe(url);
      expect(response.body.data.partner_logos).toEqual([{ name: 'A', url, image_url: url }]);
    }
  });
});

describe('stored filters', () => {
  it.each(['   ', '\t\n', ' \u00a0 '])('refuse a blank filter %j on create, patch and GraphQL', async (filter) => {
    const created = await create({ filter });
    expect(created.status).toBe(400);
    expect(detailPaths(created.body)).toEqual(['body.filter']);
    const { body } = await create({});
    const patched = await call(curator, 'PATCH', `/api/ecosystems/${body.data.id}`, { filter });
    expect(patched.status).toBe(400);
    expect(detailPaths(patched.body)).toEqual(['body.filter']);
    expect((await call(curator, 'GET', `/api/ecosystems/${body.data.id}`)).body.data.filter).toBe(body.data.filter);
    const graphql = await curator.graphql('mutation($f: String) { updateEcosystem(id: "nowhere", filter: $f) { id } }', { f: filter });
    expect(graphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'filter' }] });
  });
});

describe('ids and slugs', () => {
  it.each(['123', '0', '007'])('refuse the all-digit slug %s on create and patch, REST and GraphQL', async (digits) => {
    const created = await create({ slug: digits });
    expect(created.status).toBe(400);
    expect(detailPaths(created.body)).toEqual(['body.slug']);
    const { body } = await create({});
    const patched = await call(curator, 'PATCH', `/api/ecosystems/${body.data.id}`, { slug: digits });
    expect(patched.status).toBe(400);
    expect(detailPaths(patched.body)).toEqual(['body.slug']);
    const graphql = await curator.graphql(`mutation { createEcosystem(slug: "${digits}", name: "D", filter: "is_company:true") { id } }`);
    expect(graphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'slug' }] });
  });

  it('take slugs with digits and hyphens that are not all digits', async () => {
    for (const value of ['2024', '-1', '1-2'].map((base) => (base === '2024' ? 'fintech-2024' : `${base}${++counter}`))) {
      const response = await create({ slug: value });
      expect(response.status).toBe(201);
      expect((await call(curator, 'GET', `/api/ecosystems/${value}`)).body.data.id).toBe(response.body.data.id);
    }
  });

  it('a retried DELETE is 404 and never reaches a colleague’s ecosystem whose slug is the deleted id', async () => {
    const mine = (await create({})).body.data;
    // A colleague's ecosystem, stored before all-digit slugs were refused.
    const theirs = await app.db.prisma.ecosystem.create({
      data: { org_id: curator.orgId, slug: String(mine.id), name: 'Colleague', filter: 'is_company:true' },
    });
    const path = `/api/ecosystems/${mine.id}`;
    expect((await call(curator, 'DELETE', path)).status).toBe(204);
    expect((await call(curator, 'DELETE', path)).status).toBe(404);
    expect((await call(curator, 'GET', path)).status).toBe(404);
    expect((await call(curator, 'PATCH', path, { name: 'hijacked' })).status).toBe(404);
    expect((await call(curator, 'GET', `${path}/entities`)).status).toBe(404);
    expect((await call(curator, 'GET', `${path}/landscapes`)).status).toBe(404);
    expect((await call(curator, 'POST', `${path}/landscapes`, { name: 'x' })).status).toBe(404);
    const graphql = await curator.graphql(`mutation { deleteEcosystem(id: "${mine.id}") }`);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await curator.graphql(`{ ecosystem(id: "${mine.id}") { id } }`)).body.data).toEqual({ ecosystem: null });
    expect(await app.db.prisma.landscape.count({ where: { ecosystem_id: theirs.id } })).toBe(0);
    expect(await app.db.prisma.ecosystem.findUniqueOrThrow({ where: { id: theirs.id } })).toEqual(theirs);
    // Still reachable by its own id.
    expect((await call(curator, 'GET', `/api/ecosystems/${theirs.id}`)).body.data.name).toBe('Colleague');
  });

  it('an id beyond the id range is 404, not a slug', async () => {
    expect((await call(curator, 'GET', '/api/ecosystems/99999999999')).status).toBe(404);
    expect((await call(curator, 'DELETE', '/api/ecosystems/99999999999')).status).toBe(404);
  });

  it('two DELETEs at once: one 204, one 404', async () => {
    const { body } = await create({});
    const statuses = await Promise.all([1, 2].map(() => call(curator, 'DELETE', `/api/ecosystems/${body.data.id}`).then((response) => response.status)));
    expect(statuses.sort()).toEqual([204, 404]);
  });
});
