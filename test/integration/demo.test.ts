import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATA_DIR, loadDemoDataIfEmpty } from '../../src/data/demo.ts';
import { openDatabase } from '../../src/db/client.ts';
import { clean, fixMojibake, parseAmount, parseDayMonthYear, parseStatedAmount } from '../../scripts/open-startups/clean.ts';
import { dealAmount } from '../../scripts/open-startups/tech-giants.ts';
import { cleanCityName, findSpelling, knownCity } from '../../src/data/import/resolve/city-names.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { convertOpenStartups } from '../../scripts/open-startups/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

/** The open data the demo files are converted from, kept beside them (docs/open-data.md). */
const OPEN_DATA_DIR = join(DEMO_DATA_DIR, 'sources');
const DEMO_FILES = ['entities', 'investors', 'founders', 'transactions', 'valuations', 'news'];
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

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
  it('loads the demo data set into an empty database once, even when two starts race, past the statement timeout', async () => {
    // Start-up work has no deadline. On PostgreSQL both starts load through a pool whose statements are
    // bounded at 500 ms, far below the load's longest (seconds); the embedded database lifts its own
    // deadline around start-up work (test/integration/embedded-statement-timeout.test.ts).
    const { url, schema } = db.connection;
    const bounded = url ? await openDatabase({ url, schema, poolSize: 2, statementTimeoutMs: 500 }) : undefined;
    const loader = bounded ?? db;
    const results = await Promise.all([loadDemoDataIfEmpty(loader, logger as never), loadDemoDataIfEmpty(loader, logger as never)]).finally(() => bounded?.close());
    expect(results.map((r) => r.loaded).sort()).toEqual([false, true]);
    const result = results.find((r) => r.loaded) ?? results[0]!;
    expect(result.counts).toMatchObject({ entities: 24_256, founders: 998, transactions: 37_857, news: 1_550, valuations: 1_564 });
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

describe('the demo data over HTTP, as a new user meets it', () => {
  let app: TestApp;
  let client: TestCredentials;

  beforeAll(async () => {
    // The database the tests above loaded the demo set into (they run first, in file order).
    app = await startTestApp({ db });
    client = await createApiKeyAndToken(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  type Row = Record<string, unknown>;
  async function list(path: string): Promise<{ data: Row[]; page: { total?: number } }> {
    const response = await client.fetch(path);
    const body = (await response.json()) as { data: Row[]; page: { total?: number }; error?: unknown };
    expect(response.status, `${path}: ${JSON.stringify(body.error)}`).toBe(200);
    return body;
  }

  it('has valuations derived from acquisition prices, and unicorns', async () => {
    const { data } = await list('/api/valuations?sort=-valuation_usd&limit=3');
    expect(data).toHaveLength(3);
    for (const valuation of data) {
      expect(valuation).toMatchObject({ source: 'acquisition', transaction_id: expect.any(Number) });
      expect(valuation.valuation_usd as number).toBeGreaterThanOrEqual(1_000_000_000);
    }
    const deal = await client.fetch(`/api/transactions/${data[0]!.transaction_id as number}`);
    expect(((await deal.json()) as { data: Row }).data).toMatchObject({ round_type: 'acquisition', amount_usd: data[0]!.valuation_usd });
    const unicorns = await list('/api/entities?filter=is_unicorn:true&include_total=true&limit=1');
    expect(unicorns.page.total).toBeGreaterThan(100);
  });

  it('has investor figures from the round investors the data names', async () => {
    const { data } = await list('/api/investors?sort=-total_invested_usd&limit=5');
    expect(data[0]!.total_invested_usd as number).toBeGreaterThan(1_000_000);
    expect(data[0]!.investments_count as number).toBeGreaterThan(0);
  });

  it('offers one San Francisco, ranked by use, that finds every San Francisco company', async () => {
    const response = await client.fetch('/api/filters/location/values?q=san%20fr');
    const { data: locations } = (await response.json()) as { data: { id: number; name: string; kind: string }[] };
    expect(locations.map((location) => location.name)).toEqual(['San Francisco']);
    const sf = locations[0]!;
    const { page } = await list(`/api/entities?filter=location:${sf.id}&include_total=true&limit=1`);
    const byText = await db.prisma.entity.count({ where: { hq_city: 'San Francisco', hq_country: 'United States', deleted_at: null } });
    expect(page.total).toBe(byText);
    expect(page.total).toBeGreaterThan(1_950);
    const spellings = await db.prisma.entity.count({ where: { hq_city: { in: ['SAN FRANCISCO', 'San Francsico', 'San Francisco, CA', 'San-Francisco'] } } });
    expect(spellings).toBe(0);
  });

  it('ranks look-ups by how many entities use each location; a country is never a city', async () => {
    const response = await client.fetch('/api/filters/location/values?q=united');
    const { data } = (await response.json()) as { data: { name: string; kind: string }[] };
    expect(data[0]).toMatchObject({ name: 'United States', kind: 'country' });
    expect(data.filter((location) => location.name === 'United States')).toHaveLength(1);
    const all = await client.fetch('/api/filters/location/values?limit=3');
    const top = ((await all.json()) as { data: { name: string }[] }).data.map((location) => location.name);
    expect(top).toEqual(['United States', 'San Francisco', 'New York']);
  });

  it('reads the news amount the headline states', async () => {
    const { data } = await list(`/api/news?filter=${encodeURIComponent('title[contains]:minecraft')}`);
    expect(data[0]).toMatchObject({ amount_usd: '2500000000' });
  });

  // The README's examples, copied here verbatim: each must be in the README and return rows.
  it.each([
    '/api/entities?filter=name[contains]:airbnb',
    '/api/entities?filter=and(launch_year[gte]:2010, hq_city:San Francisco, is_unicorn:false)&sort=-total_funding_usd',
    '/api/entities?filter=or(is_unicorn:true, investor__total_invested_usd[gte]:1000000)',
    '/api/entities?filter=investor__name:Y Combinator&sort=-launch_year',
    '/api/valuations?sort=-valuation_usd&limit=5',
    '/api/investors?sort=-investments_count&limit=5',
    '/api/news?filter=amount_usd[gte]:1000000000',
    '/api/filters/location/values?q=San Fr',
  ])('README: %s', async (example) => {
    expect(README).toContain(example);
    const [path, query = ''] = example.split('?');
    const params = new URLSearchParams(query);
    const { data } = await list(`${path}?${params.toString()}`);
    expect(data.length).toBeGreaterThan(0);
  });

  it('README: the GraphQL search returns the company with its founders', async () => {
    const query = '{ entities(filter: "name[contains]:airbnb", limit: 1) { data { name founders { name } } } }';
    expect(README).toContain(query);
    const { body } = await client.graphql(query);
    expect((body.data!.entities as { data: { name: string; founders: unknown[] }[] }).data[0]).toMatchObject({ name: 'Airbnb' });
  });
});

describe('scripts/convert-open-startups', () => {
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

  it('reads the one amount a headline states, not ranges or several', () => {
    expect(parseStatedAmount('Microsoft Has Acquired Minecraft For $2.5 Billion | TechCrunch')).toBe(2_500_000_000);
    expect(parseStatedAmount('Adobe acquires Auditude for $120M (updated)')).toBe(120_000_000);
    expect(parseStatedAmount('SanDisk to buy Fusion-io in $1.1 bln cash deal')).toBe(1_100_000_000);
    expect(parseStatedAmount('eBay buys Baazee.com for $50 mn')).toBe(50_000_000);
    expect(parseStatedAmount('Facebook Scoops Up Face.com For $55-60M')).toBeNull();
    expect(parseStatedAmount('Anobit For $400 Million – $500 Million')).toBeNull();
    expect(parseStatedAmount('Amazon Buys Zappos, The Price is $928m. not $847m.')).toBeNull();
    expect(parseStatedAmount('only $2.5 here')).toBeNull();
    // The Price column's typo loses to the headline; an undisclosed price takes it; a lower price stays.
    expect(dealAmount(15_000_000_000, 2_500_000_000)).toBe(2_500_000_000);
    expect(dealAmount(null, 16_700_000_000)).toBe(16_700_000_000);
    expect(dealAmount(80_000_000, 400_000_000)).toBe(80_000_000);
    expect(dealAmount(945_000_000, null)).toBe(945_000_000);
  });

  it('cleans city names and tells typos from other towns', () => {
    expect(cleanCityName('  SAN  FRANCISCO ', 'United States')).toBe('San Francisco');
    expect(cleanCityName('San Francisco, CA', 'United States')).toBe('San Francisco');
    expect(cleanCityName('United States', 'United States')).toBe('');
    expect(cleanCityName('USA', 'United States')).toBe('');
    expect(cleanCityName('Singapore', 'Singapore')).toBe('Singapore');
    expect(cleanCityName('Lebanon', 'United States')).toBe('Lebanon');
    const known = [knownCity(1, 'San Francisco', 1990), knownCity(2, 'Austin', 437), knownCity(3, 'Newton', 52), knownCity(4, 'St. Louis', 80)];
    const spelling = (name: string, uses: number) => findSpelling({ name, uses }, known)?.name;
    expect(spelling('San Francsico', 3)).toBe('San Francisco');
    expect(spelling('Sn Francisco', 1)).toBe('San Francisco');
    expect(spelling('San-Francisco', 1)).toBe('San Francisco');
    expect(spelling('St Louis', 5)).toBe('St. Louis');
    expect(spelling('Tustin', 1)).toBeUndefined();
    expect(spelling('Newtown', 5)).toBeUndefined();
    expect(findSpelling({ name: 'San Francsico', uses: 0 }, known, { typos: false })).toBeUndefined();
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
