import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory, ImportError } from '../../src/data/import/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { fixtureCopy, FIXTURE_DIR, gzipAll, removeScratchDirs, replaceLine, tableChecksums } from '../fixtures/import/helpers.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.destroy();
  await removeScratchDirs();
});

const EXPECTED_COUNTS = { entities: 7, investors: 2, founders: 2, transactions: 6, valuations: 2, news: 2 };

async function importError(dir: string): Promise<ImportError> {
  const error = await importDirectory(db, dir).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ImportError);
  return error as ImportError;
}

describe('importDirectory', () => {
  it('imports every resource of the fixture directory', async () => {
    expect(await importDirectory(db, FIXTURE_DIR)).toEqual(EXPECTED_COUNTS);
    const entity = await db.prisma.entity.findUniqueOrThrow({
      where: { id: 1 },
      include: { tags: { include: { tag: true } }, hq_city_ref: { include: { parent: true } }, hq_country_ref: true },
    });
    expect(entity).toMatchObject({ name: 'Acme Robotics', type: 'company', is_company: true, launch_year: 2015 });
    expect(entity.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(entity.hq_country_ref).toMatchObject({ kind: 'country', name: 'United States', country_code: 'USA' });
    expect(entity.hq_city_ref).toMatchObject({ kind: 'city', name: 'San Francisco', parent: { name: 'United States' } });
    expect(entity.tags.map((t) => `${t.tag.type}:${t.tag.name}`).sort()).toEqual([
      'industry:Robotics',
      'technology:Artificial Intelligence',
    ]);
    const deleted = await db.prisma.entity.findUniqueOrThrow({ where: { id: 6 } });
    expect(deleted.deleted_at?.toISOString()).toBe('2024-05-01T00:00:00.000Z');
  });

  it('matches tags by id when given and shares locations and tags between records', async () => {
    const tag = await db.prisma.tag.findUniqueOrThrow({ where: { id: 50 } });
    expect(tag).toMatchObject({ name: 'Deep Tech', type: 'technology' });
    expect(await db.prisma.tag.count({ where: { name: 'Robotics' } })).toBe(1);
    expect(await db.prisma.location.count({ where: { kind: 'country', name: 'United States' } })).toBe(1);
    expect(await db.prisma.location.count({ where: { kind: 'city', name: 'San Francisco' } })).toBe(1);
  });

  it('links founders to companies, universities, backgrounds and a country', async () => {
    const founder = await db.prisma.founder.findUniqueOrThrow({
      where: { id: 1 },
      include: { companies: true, education: true, backgrounds: { include: { background: true } }, location_country: true },
    });
    expect(founder.companies.map((c) => [c.entity_id, c.is_founder, c.is_past]).sort()).toEqual([
      [1, true, false],
      [6, true, true],
    ]);
    expect(founder.education).toEqual([
      expect.objectContaining({ university_id: 5, degree: 'MSc', majors: ['Computer Science', 'Robotics'] }),
    ]);
    expect(founder.backgrounds.map((b) => b.background.name).sort()).toEqual(['Academia', 'Engineering']);
    expect(founder.location_country?.name).toBe('United States');
    expect(await db.prisma.background.count()).toBe(2);
  });

  it('recomputes derived columns instead of trusting the files', async () => {
    const entities = await db.prisma.entity.findMany({ orderBy: { id: 'asc' } });
    const byId = new Map(entities.map((e) => [e.id, e]));
    expect(byId.get(1)).toMatchObject({ total_funding_usd: 12_000_000n, is_unicorn: true }); // valuation ≥ $1B
    expect(byId.get(2)).toMatchObject({ total_funding_usd: 100_000_000n, is_unicorn: true }); // round valuation
    expect(byId.get(6)).toMatchObject({ total_funding_usd: 500_000n, is_unicorn: false }); // acquisition excluded
    expect(byId.get(7)).toMatchObject({ total_funding_usd: 0n, is_unicorn: false, is_investor: true });

    const investors = await db.prisma.investor.findMany({ orderBy: { id: 'asc' } });
    expect(investors).toEqual([
      { id: 3, total_invested_usd: 7_500_000n, investments_count: 3, portfolio_count: 2, exits_count: 1, lead_investments_count: 1 },
      { id: 4, total_invested_usd: 105_000_000n, investments_count: 2, portfolio_count: 2, exits_count: 0, lead_investments_count: 1 },
      { id: 7, total_invested_usd: 0n, investments_count: 0, portfolio_count: 0, exits_count: 0, lead_investments_count: 0 },
    ]);
    const round = await db.prisma.fundingRound.findUniqueOrThrow({ where: { id: 12 }, include: { investors: true } });
    expect(round).toMatchObject({ amount_usd: 100_000_000n, valuation_usd: 1_500_000_000n, round_type: 'series_b' });
    expect(round.date.toISOString().slice(0, 10)).toBe('2019-01-10');
  });

  it('is idempotent: a second import changes no row at all', async () => {
    const before = await tableChecksums(db.sql);
    expect(await importDirectory(db, FIXTURE_DIR)).toEqual(EXPECTED_COUNTS);
    expect(await tableChecksums(db.sql)).toEqual(before);
  });

  it('reads .jsonl.gz files the same way', async () => {
    const dir = await fixtureCopy();
    await gzipAll(dir, ['entities.jsonl', 'founders.jsonl', 'news.jsonl']);
    const before = await tableChecksums(db.sql);
    expect(await importDirectory(db, dir)).toEqual(EXPECTED_COUNTS);
    expect(await tableChecksums(db.sql)).toEqual(before);
  });

  it('updates changed records, replaces their lists and moves updated_at only for them', async () => {
    const [untouchedBefore] = await db.prisma.entity.findMany({ where: { id: 2 } });
    const dir = await fixtureCopy({
      'entities.jsonl': (text) =>
        replaceLine(
          text,
          1,
          JSON.stringify({ id: 1, type: 'company', name: 'Acme Robotics Inc.', hq_country: 'United States', hq_city: 'Oakland', tags: [{ name: 'Logistics', type: 'industry' }] }),
        ),
      'transactions.jsonl': (text) => text.replace('"amount_usd": 2000000', '"amount_usd": 3000000'),
    });
    expect(await importDirectory(db, dir)).toEqual(EXPECTED_COUNTS);
    const entity = await db.prisma.entity.findUniqueOrThrow({ where: { id: 1 }, include: { tags: { include: { tag: true } }, hq_city_ref: true } });
    expect(entity).toMatchObject({ name: 'Acme Robotics Inc.', tagline: '', launch_year: null, total_funding_usd: 13_000_000n });
    expect(entity.hq_city_ref?.name).toBe('Oakland');
    expect(entity.tags.map((t) => t.tag.name)).toEqual(['Logistics']);
    expect(entity.updated_at.getTime()).toBeGreaterThan(entity.created_at.getTime() - 1);
    const [untouchedAfter] = await db.prisma.entity.findMany({ where: { id: 2 } });
    expect(untouchedAfter?.updated_at).toEqual(untouchedBefore?.updated_at);
    expect(await db.prisma.entity.count()).toBe(7);
    expect((await db.prisma.investor.findUniqueOrThrow({ where: { id: 3 } })).total_invested_usd).toBe(8_500_000n);
  });

  it('moves id sequences past imported ids, so records created later get free ids', async () => {
    const entity = await db.prisma.entity.create({ data: { uuid: crypto.randomUUID(), slug: 'created-later', type: 'company', name: 'Later' } });
    expect(entity.id).toBe(8);
    const round = await db.prisma.fundingRound.create({
      data: { slug: 'later-round', entity_id: entity.id, round_type: 'seed', date: new Date('2024-01-01') },
    });
    expect(round.id).toBe(17);
    expect((await db.prisma.tag.create({ data: { name: 'Later', type: 'industry' } })).id).toBeGreaterThan(50);
    expect((await db.prisma.newsArticle.create({ data: { url: 'https://x.example/later', title: 'Later', publish_date: new Date() } })).id).toBe(32);
  });
});

describe('importDirectory with bad data', () => {
  it('rejects a whole file for one malformed line in its middle and names file, line and field', async () => {
    const before = await tableChecksums(db.sql);
    const dir = await fixtureCopy({
      'entities.jsonl': (text) =>
        replaceLine(text.replace('"Globex"', '"Globex Renamed"'), 4, '{"id": 4, "type": "investor", "name": "Contoso Capital", "launch_year": "2010"}'),
    });
    const error = await importError(dir);
    expect(error.message).toBe('entities.jsonl line 4: launch_year: expected integer, received string "2010"');
    expect(error).toMatchObject({ file: 'entities.jsonl', line: 4, path: 'launch_year' });
    expect(await tableChecksums(db.sql)).toEqual(before);
  });

  it('keeps the files before the bad one and applies nothing of the bad one', async () => {
    const dir = await fixtureCopy({
      'entities.jsonl': (text) => text.replace('"Globex"', '"Globex Two"'),
      'transactions.jsonl': (text) => replaceLine(text, 3, text.split('\n')[2]!.replace('"id": 4}', '"id": 999}')),
    });
    const roundsBefore = await tableChecksums(db.sql, ['funding_rounds', 'round_investors']);
    const error = await importError(dir);
    expect(error.message).toBe('transactions.jsonl line 3: investors[0].id: no entity with id 999');
    expect((await db.prisma.entity.findUniqueOrThrow({ where: { id: 2 } })).name).toBe('Globex Two');
    expect(await tableChecksums(db.sql, ['funding_rounds', 'round_investors'])).toEqual(roundsBefore);
  });

  it.each([
    ['invalid JSON', '{"id": 9, "type": "company", "name": ', /^entities\.jsonl line 2: invalid JSON/],
    ['an unknown field', '{"id": 9, "type": "company", "name": "X", "lauch_year": 2001}', /^entities\.jsonl line 2: lauch_year: unknown field$/],
    ['a missing field', '{"id": 9, "type": "company"}', /^entities\.jsonl line 2: name: required$/],
    ['a bad enum value', '{"id": 9, "type": "startup", "name": "X"}', /^entities\.jsonl line 2: type: expected one of/],
    ['a bad nested field', '{"id": 9, "type": "company", "name": "X", "tags": [{"name": "A", "type": "color"}]}', /^entities\.jsonl line 2: tags\[0\]\.type: /],
    ['a duplicate id', '{"id": 1, "type": "company", "name": "Again"}', /^entities\.jsonl line 2: id: duplicate id 1 \(also on line 1\)$/],
  ])('reports %s', async (_case, line, message) => {
    const before = await tableChecksums(db.sql);
    const dir = await fixtureCopy({ 'entities.jsonl': (text) => replaceLine(text, 2, line) });
    expect((await importError(dir)).message).toMatch(message);
    expect(await tableChecksums(db.sql)).toEqual(before);
  });

  it('reports a database constraint for the batch of lines it happened in', async () => {
    const before = await tableChecksums(db.sql);
    const dir = await fixtureCopy({ 'entities.jsonl': (text) => text.replace('"name": "Northwind Ventures"', '"slug": "globex", "name": "Northwind Ventures"') });
    const error = await importError(dir);
    expect(error.message).toMatch(/^entities\.jsonl lines 1-8: rejected by the database: .*entities_slug_key/);
    expect(error).toMatchObject({ file: 'entities.jsonl', line: 1, lastLine: 8 });
    expect(await tableChecksums(db.sql)).toEqual(before);
  });

  it('reports a bad transaction amount and a bad date with their fields', async () => {
    const amount = await fixtureCopy({ 'transactions.jsonl': (text) => text.replace('"amount_usd": 10000000', '"amount_usd": -5') });
    expect((await importError(amount)).message).toMatch(/^transactions\.jsonl line 2: amount_usd: /);
    const date = await fixtureCopy({ 'valuations.jsonl': (text) => text.replace('"2020-01-01"', '"01/01/2020"') });
    expect((await importError(date)).message).toMatch(/^valuations\.jsonl line 1: date: expected a date/);
  });

  it('refuses a directory with both a .jsonl and a .jsonl.gz of one resource, or no files at all', async () => {
    const both = await fixtureCopy();
    await gzipAll(both, ['news.jsonl']);
    const again = await fixtureCopy();
    const { cp } = await import('node:fs/promises');
    await cp(`${both}/news.jsonl.gz`, `${again}/news.jsonl.gz`);
    expect((await importError(again)).message).toMatch(/both news\.jsonl and news\.jsonl\.gz exist/);
    const empty = await fixtureCopy(Object.fromEntries(['entities', 'investors', 'founders', 'transactions', 'valuations', 'news'].map((n) => [`${n}.jsonl`, () => null])));
    expect((await importError(empty)).message).toMatch(/no import files found/);
  });

  it('reports a corrupt gzip file as a read error of that file', async () => {
    const dir = await fixtureCopy({ 'news.jsonl': () => null });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${dir}/news.jsonl.gz`, 'this is not gzip');
    expect((await importError(dir)).message).toMatch(/^news\.jsonl\.gz: cannot read the file/);
  });
});
