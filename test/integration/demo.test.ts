import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATA_DIR, loadDemoDataIfEmpty } from '../../src/data/demo.ts';
import { clean, fixMojibake, parseAmount, parseDayMonthYear } from '../../src/data/open-startups/clean.ts';
import { convertOpenStartups } from '../../src/data/open-startups/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

const OPEN_DATA_DIR = process.env.OPEN_STARTUPS_DIR ?? '/work/shared/data/open-startups';
const DEMO_FILES = ['entities', 'investors', 'founders', 'transactions', 'news'];

let db: TestDatabase;
const logs: { message: string; fields: unknown }[] = [];
const logger = {
  info: (fields: unknown, message: string) => void logs.push({ fields, message }),
  warn: (fields: unknown, message: string) => void logs.push({ fields, message }),
};

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.destroy();
});

describe('loadDemoDataIfEmpty', () => {
  it('loads the demo data set into an empty database once, even when two starts race', async () => {
    const results = await Promise.all([loadDemoDataIfEmpty(db, logger as never), loadDemoDataIfEmpty(db, logger as never)]);
    expect(results.map((r) => r.loaded).sort()).toEqual([false, true]);
    const result = results.find((r) => r.loaded) ?? results[0]!;
    expect(result.counts).toMatchObject({ entities: 24_256, founders: 998, transactions: 37_857, news: 1_550, valuations: 0 });
    expect(logs.at(-1)).toMatchObject({ message: 'demo data set loaded', fields: { counts: result.counts } });
    expect(result.durationMs).toBeGreaterThan(0);
    expect(await db.prisma.entity.count()).toBe(24_256);
    expect(await db.prisma.location.count({ where: { kind: 'country', name: 'United States' } })).toBe(1);
  }, 180_000);

  it('contains real companies with their rounds, founders and acquisitions', async () => {
    const airbnb = await db.prisma.entity.findFirstOrThrow({
      where: { name: 'Airbnb' },
      include: { founder_roles: { include: { founder: true } }, rounds: true, tags: { include: { tag: true } } },
    });
    expect(airbnb).toMatchObject({ type: 'company', hq_city: 'San Francisco', hq_country: 'United States', launch_year: 2007 });
    expect(airbnb.platform_url).toBe('https://www.crunchbase.com/organization/airbnb');
    expect(airbnb.founder_roles.map((role) => role.founder.name).sort()).toEqual(['Brian Chesky', 'Joe Gebbia', 'Nathan Blecharczyk']);
    expect(airbnb.tags.map((t) => t.tag.name)).toContain('Y Combinator');
    expect(airbnb.total_funding_usd).toBe(airbnb.rounds.reduce((sum, r) => sum + (r.round_type === 'acquisition' ? 0n : (r.amount_usd ?? 0n)), 0n));
    for (const name of ['Dropbox', 'Facebook', 'Stripe', 'Reddit']) {
      expect(await db.prisma.entity.count({ where: { name } }), name).toBeGreaterThan(0);
    }
    const acquired = await db.prisma.newsArticle.findFirstOrThrow({
      where: { article_type: 'acquisition', entities: { some: { entity: { name: 'Behance' } } } },
      include: { entities: { include: { entity: true } } },
    });
    expect(acquired.entities.map((m) => [m.mention_role, m.entity.name]).sort()).toEqual([
      ['acquired', 'Behance'],
      ['acquirer', 'Adobe Systems'],
    ]);
  });

  it('creates country and city locations and gives Y Combinator an investor profile', async () => {
    const sf = await db.prisma.location.findFirstOrThrow({ where: { kind: 'city', name: 'San Francisco' }, include: { parent: true } });
    expect(sf.parent).toMatchObject({ kind: 'country', name: 'United States', country_code: 'USA' });
    const yc = await db.prisma.entity.findFirstOrThrow({ where: { name: 'Y Combinator' }, include: { investor: true } });
    expect(yc.is_investor).toBe(true);
    expect(yc.investor).toMatchObject({ investments_count: 688, lead_investments_count: 688 });
  });

  it('does nothing when the database already holds entities, or when the files are missing', async () => {
    expect(await loadDemoDataIfEmpty(db, logger as never)).toEqual({ loaded: false, skipped: 'database has data' });
    expect(await loadDemoDataIfEmpty(db, logger as never, '/nonexistent/demo')).toEqual({ loaded: false, skipped: 'no demo data set' });
    expect(logs.at(-1)?.message).toMatch(/not found/);
  });
});

describe.skipIf(!existsSync(OPEN_DATA_DIR))('scripts/convert-open-startups', () => {
  it('reproduces the committed demo files from the open data', async () => {
    const out = await mkdtemp(join(tmpdir(), 'vda-demo-'));
    try {
      await convertOpenStartups(OPEN_DATA_DIR, out);
      for (const name of DEMO_FILES) {
        const fresh = gunzipSync(await readFile(join(out, `${name}.jsonl.gz`))).toString('utf8');
        const committed = gunzipSync(await readFile(join(DEMO_DATA_DIR, `${name}.jsonl.gz`))).toString('utf8');
        expect(fresh === committed, `${name}.jsonl.gz is out of date: run scripts/convert-open-startups.ts`).toBe(true);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('open data repairs', () => {
  it.each([
    ['agÃ¡mi Systems', 'agámi Systems'],
    ['InsideAxisâ„¢', 'InsideAxis™'],
    ['Readerâ€™s Digest', 'Reader’s Digest'],
    ['Condé Nast', 'Condé Nast'],
    ['BerkÃ_na Wireless', 'BerkÃ_na Wireless'],
  ])('fixes mojibake only where it converts back cleanly: %s', (input, output) => {
    expect(fixMojibake(input)).toBe(output);
  });

  it('drops spreadsheet error values and damaged amounts', () => {
    expect(clean('#NAME?')).toBe('');
    expect(clean('  #waywire ')).toBe('#waywire');
    expect(parseAmount('2.6E+12')).toBeNull();
    expect(parseAmount('$3,000,000')).toBe(3_000_000);
    expect(parseAmount('Undisclosed amount')).toBeNull();
    expect(parseAmount('')).toBeNull();
  });

  it('reads d/mm/yyyy dates and repairs years a spreadsheet turned into serial dates', () => {
    expect(parseDayMonthYear('15/04/2002', '2002')).toBe('2002-04-15');
    expect(parseDayMonthYear('28/06/1905', '2006')).toBe('2006-01-01');
    expect(parseDayMonthYear('4//17/2013', '2013')).toBe('2013-01-01');
    expect(parseDayMonthYear('31/02/2010', '2010')).toBe('2010-01-01');
    expect(parseDayMonthYear('', '')).toBeNull();
  });
});
