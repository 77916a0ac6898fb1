/**
 * GET /api/search and the `search` field on the demo data set (24k entities, as `npm start` loads it):
 * typos, prefixes, legal forms, accents, case and punctuation, Unicode forms and invisible characters,
 * split words; hits in the order of their scores; kinds and permissions; limits and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

interface Hit {
  type: string;
  id: number;
  name: string;
  matched: string;
  score: number;
}

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ demo: true });
  auth = await createApiKeyAndToken(app);
}, 900_000);

afterAll(async () => app?.close());

async function search(query: string, as = auth): Promise<{ status: number; body: any }> {
  const response = await as.fetch(`/api/search?${query}`);
  return { status: response.status, body: await response.json() };
}

async function hits(q: string, extra = ''): Promise<Hit[]> {
  const { status, body } = await search(`q=${encodeURIComponent(q)}${extra}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.data;
}

const idOf = async (name: string) => (await app.db.prisma.entity.findFirstOrThrow({ where: { name }, select: { id: true } })).id;

describe('matching names', () => {
  it.each([
    ['stipe', 'Stripe'],
    ['Stripe', 'Stripe'],
    ['airbnb inc', 'Airbnb'],
    ['AIRBNB', 'Airbnb'],
    ['Airbnb, Inc.', 'Airbnb'],
    ['airbnb ltd', 'Airbnb'],
    ['airbnb gmbh', 'Airbnb'],
    ['dropb', 'Dropbox'],
    ['drobpox', 'Dropbox'],
    ['facebok', 'Facebook'],
    ['nestle health science', 'Nestlé Health Science'],
    ['telefonica digital', 'Telefónica Digital'],
    ['Condé Nast', 'Condé Nast'],
    ['conde nast', 'Condé Nast'],
    ['obriens response', 'O’Brien’s Response Management Inc.'],
    ["O'Brien's Response Management", 'O’Brien’s Response Management Inc.'],
    ['alteryx', 'Alteryx, Inc.'],
    ['1-800-dentist', '1-800-DENTIST'],
    ['waywire', '#waywire'],
  ])('%s finds %s first', async (q, name) => {
    const [first] = await hits(q);
    expect(first).toMatchObject({ type: 'entity', name, matched: name, id: await idOf(name) });
  });

  it('scores an exact name (legal form, case and accents aside) 1, a prefix 0.9, a typo below 0.8', async () => {
    expect((await hits('airbnb inc'))[0]!.score).toBe(1);
    expect((await hits('AIRBNB'))[0]!.score).toBe(1);
    expect((await hits('conde nast'))[0]!.score).toBe(1);
    expect((await hits('dropb'))[0]!.score).toBe(0.9);
    const typo = (await hits('stipe'))[0]!.score;
    expect(typo).toBeGreaterThan(0.3);
    expect(typo).toBeLessThan(0.8);
  });

  it('returns hits best first: by the score shown, then by prominence', async () => {
    const found = await hits('air', '&limit=50');
    expect(found).toHaveLength(50);
    expect(found[0]!.name).toBe('Airbnb');
    const scores = found.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Every name starting with "air" is a prefix hit, and the most funded of them comes first.
    const funding = await app.db.sql.query<{ id: number; f: string }>(
      `SELECT id, total_funding_usd::text AS f FROM entities WHERE id = ANY($1::int[])`,
      [found.filter((hit) => hit.score === 0.9).map((hit) => hit.id)],
    );
    const byId = new Map(funding.map((row) => [row.id, BigInt(row.f)]));
    const prefix = found.filter((hit) => hit.score === 0.9).map((hit) => byId.get(hit.id)!);
    expect(prefix.length).toBeGreaterThan(10);
    expect(prefix).toEqual([...prefix].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
  });

  it.each(['stipe', 'deliveroo', 'micro soft', 'ubr', 'sequia capital', 'brian', 'health', 'robotics', 'data systems'])(
    '%s: the hits in the order of the scores they show',
    async (q) => {
      const scores = (await hits(q, '&limit=50')).map((hit) => hit.score);
      expect(scores.length).toBeGreaterThan(1);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    },
  );

  it('ranks Stripe first for stipe, then the others by their scores (it ranked Stion 0.48 above Stipple 0.533)', async () => {
    const found = await hits('stipe');
    expect(found[0]).toMatchObject({ name: 'Stripe', score: 0.64 });
    expect(found.findIndex((hit) => hit.name === 'Stipple')).toBeLessThan(found.findIndex((hit) => hit.name === 'Stion'));
  });

  it('ranks the best-scoring hit of deliveroo first (it was fifth)', async () => {
    const found = await hits('deliveroo');
    expect(found[0]!.score).toBe(Math.max(...found.map((hit) => hit.score)));
    expect(found[0]!.name).toBe('Delivered');
  });

  it.each([
    ['ｓｔｒｉｐｅ', 'fullwidth letters'],
    ['Ｓｔｒｉｐｅ，Ｉｎｃ．', 'fullwidth letters and punctuation'],
    ['stri\u00adpe', 'a soft hyphen'],
    ['str\u200bipe', 'a zero-width space'],
    ['\ufeffstripe\u200d', 'a byte order mark and a zero-width joiner'],
  ])('%s (%s) is the name Stripe', async (q, _what) => {
    expect((await hits(q))[0]).toMatchObject({ name: 'Stripe', score: 1 });
  });

  it('folds a letter and its combining accent as the accented letter', async () => {
    expect((await hits('Conde\u0301 Nast'))[0]).toMatchObject({ name: 'Condé Nast', score: 1 });
  });

  it('finds a word split in two (micro soft) or names run together, scored 0.95', async () => {
    expect((await hits('micro soft'))[0]).toMatchObject({ name: 'Microsoft', score: 0.95 });
    expect((await hits('drop box'))[0]).toMatchObject({ name: 'Dropbox', score: 0.95 });
    expect((await hits('nestlehealthscience'))[0]).toMatchObject({ name: 'Nestlé Health Science', score: 0.95 });
  });

  it('finds a short name from a typo that shares too few trigrams with it (ubr → Uber)', async () => {
    expect((await hits('ubr'))[0]).toMatchObject({ name: 'Uber', id: await idOf('Uber') });
    expect((await hits('uebr'))[0]).toMatchObject({ name: 'Uber' });
  });

  it('finds nothing for a name that is not there, or a query of punctuation only', async () => {
    expect(await hits('qqxqzzvv')).toEqual([]);
    expect(await hits('!!!')).toEqual([]);
  });

  it('finds founders and investors, each organisation once', async () => {
    const chesky = await hits('brian chesky');
    expect(chesky[0]).toMatchObject({ type: 'founder', name: 'Brian Chesky', score: 1 });
    const sequoia = await hits('sequoia capital');
    expect(sequoia[0]).toMatchObject({ type: 'investor', name: 'Sequoia Capital', score: 1 });
    const typo = await hits('sequia capital');
    expect(typo[0]).toMatchObject({ type: 'investor', name: 'Sequoia Capital' });
    for (const found of [chesky, sequoia, await hits('airbnb')]) {
      const keys = found.filter((hit) => hit.type !== 'founder').map((hit) => hit.id);
      expect(new Set(keys).size, JSON.stringify(found)).toBe(keys.length);
    }
  });

  it('narrows to the kinds asked for; asked alone, a company that invests is an investor hit too', async () => {
    const founders = await hits('brian', '&types=founder&limit=20');
    expect(founders.length).toBeGreaterThan(3);
    expect(new Set(founders.map((hit) => hit.type))).toEqual(new Set(['founder']));
    const entities = await hits('sequoia capital', '&types=entity');
    expect(entities[0]).toMatchObject({ type: 'entity', name: 'Sequoia Capital' });
    const investors = await hits('airbnb', '&types=investor');
    for (const hit of investors) expect(hit.type).toBe('investor');
  });

  it('leaves out soft-deleted entities, and finds a renamed one by its new name at once', async () => {
    const id = await idOf('Dropbox');
    await app.db.prisma.entity.update({ where: { id }, data: { name: 'Dropbox Zwölf' } });
    expect((await hits('dropbox zwolf'))[0]).toMatchObject({ id, score: 1 });
    await app.db.prisma.entity.update({ where: { id }, data: { deleted_at: new Date() } });
    expect((await hits('dropbox zwolf')).map((hit) => hit.id)).not.toContain(id);
    await app.db.prisma.entity.update({ where: { id }, data: { name: 'Dropbox', deleted_at: null } });
    expect((await hits('dropbox'))[0]).toMatchObject({ id, score: 1 });
  });

  it('finds a new or renamed entity or founder by a misspelt name at once (the name lists follow every write)', async () => {
    const { id } = await app.db.prisma.entity.create({
      data: { uuid: crypto.randomUUID(), slug: 'quillfeather-robotics', type: 'company', name: 'Quillfeather Robotics' },
    });
    try {
      expect((await hits('quilfleather robotics'))[0]).toMatchObject({ id, name: 'Quillfeather Robotics' });
      await app.db.prisma.entity.update({ where: { id }, data: { name: 'Marrowind Labs' } });
      expect((await hits('marowind labs'))[0]).toMatchObject({ id, name: 'Marrowind Labs' });
      // The old name stays listed, and finds nothing.
      expect((await hits('quilfleather robotics')).map((hit) => hit.id)).not.toContain(id);
    } finally {
      await app.db.prisma.entity.delete({ where: { id } });
    }
    const founder = await app.db.prisma.founder.findFirstOrThrow({ where: { name: 'Brian Chesky' }, select: { id: true } });
    await app.db.prisma.founder.update({ where: { id: founder.id }, data: { name: 'Ottoline Vashchenko' } });
    try {
      expect((await hits('ottoline vashenko', '&types=founder'))[0]).toMatchObject({ id: founder.id, name: 'Ottoline Vashchenko' });
    } finally {
      await app.db.prisma.founder.update({ where: { id: founder.id }, data: { name: 'Brian Chesky' } });
    }
  });
});

describe('websites', () => {
  it.each([
    ['stripe.com', 'Stripe', 'http://stripe.com'],
    ['https://www.Stripe.com/pricing?utm_source=newsletter#plans', 'Stripe', 'http://stripe.com'],
    ['STRIPE.COM.', 'Stripe', 'http://stripe.com'],
    ['stripe.com:443', 'Stripe', 'http://stripe.com'],
    ['jane.doe@dropbox.com', 'Dropbox', 'http://www.dropbox.com'],
    ['mailto:press@airbnb.com', 'Airbnb', 'http://airbnb.com'],
    ['www.reddit.com/r/startups', 'Reddit', 'http://reddit.com'],
  ])('%s finds %s by its website', async (q, name, website) => {
    const [first] = await hits(q);
    expect(first).toEqual({ type: 'entity', id: await idOf(name), name, matched: website, score: 1 });
  });

  it('finds nothing by a domain no entity has, and looks domains up among entities only', async () => {
    const unknown = await hits('no-such-company-here.io');
    expect(unknown.filter((hit) => hit.score === 1)).toEqual([]);
    expect((await hits('stripe.com', '&types=founder')).map((hit) => hit.type)).not.toContain('entity');
  });
});

describe('GraphQL', () => {
  it('answers search(q, types, limit) as REST does', async () => {
    const rest = await search('q=stipe&types=entity,founder&limit=5');
    const { body } = await auth.graphql('query($q: String!) { search(q: $q, types: "entity,founder", limit: 5) { data { type id name matched score } page { limit } } }', {
      q: 'stipe',
    });
    expect(body.errors).toBeUndefined();
    expect(body.data!.search).toEqual(rest.body);
    expect(rest.body.page).toEqual({ limit: 5 });
  });
});

describe('permissions', () => {
  it('searches only the kinds the caller may read by default, and refuses a kind it may not read', async () => {
    const entitiesOnly = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const found = await search('q=brian%20chesky&limit=50', entitiesOnly);
    expect(found.status).toBe(200);
    expect(found.body.data.length).toBeGreaterThan(0);
    expect(found.body.data.every((hit: Hit) => hit.type === 'entity')).toBe(true);
    const refused = await search('q=brian&types=founder', entitiesOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN' });
    expect(refused.body.error.message).toContain('read:founders');
    const foundersOnly = await createApiKeyAndToken(app, { permissions: ['read:founders'] });
    const people = await search('q=brian%20chesky', foundersOnly);
    expect(people.body.data[0]).toMatchObject({ type: 'founder', name: 'Brian Chesky', score: 1 });
    expect(new Set(people.body.data.map((hit: Hit) => hit.type))).toEqual(new Set(['founder']));
    const none = await createApiKeyAndToken(app, { permissions: ['read:news'] });
    expect((await search('q=stripe', none)).status).toBe(403);
  });

  it('checks permissions before parameters', async () => {
    const entitiesOnly = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    expect((await search('types=investor&limit=99', entitiesOnly)).status).toBe(403);
  });
});

describe('limits and errors', () => {
  it('returns at most limit hits, 10 by default', async () => {
    expect(await hits('a')).toHaveLength(10);
    expect(await hits('a', '&limit=1')).toHaveLength(1);
    expect(await hits('a', '&limit=50')).toHaveLength(50);
  });

  it.each([
    ['q=', 'query.q'],
    ['limit=5', 'query.q'],
    [`q=${'a'.repeat(201)}`, 'query.q'],
    ['q=air&limit=0', 'query.limit'],
    ['q=air&limit=51', 'query.limit'],
    ['q=air&limit=ten', 'query.limit'],
    ['q=air&types=company', 'query.types'],
    ['q=air&types=', 'query.types'],
    ['q=air&typo=1', 'query.typo'],
  ])('%s is 400 with a detail at %s', async (query, path) => {
    const { status, body } = await search(query);
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it('is described in the OpenAPI document: q required, limit 1..50, the permission per kind', async () => {
    const document = (await (await app.fetch('/openapi.json')).json()) as any;
    const operation = document.paths['/api/search'].get;
    const parameter = (name: string) => operation.parameters.find((candidate: { name: string }) => candidate.name === name);
    expect(parameter('q')).toMatchObject({ in: 'query', required: true, schema: { minLength: 1, maxLength: 200 } });
    expect(parameter('limit').schema).toMatchObject({ minimum: 1, maximum: 50, default: 10 });
    expect(parameter('types').required).toBe(false);
  });

  it('accepts a q of exactly 200 characters', async () => {
    expect((await search(`q=${'a'.repeat(200)}`)).status).toBe(200);
  });
});
