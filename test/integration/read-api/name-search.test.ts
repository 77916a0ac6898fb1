// "Find the company called X": case-insensitive `contains` / `starts_with` on text fields, over HTTP on
// both transports, ranked best-known first, wildcards taken literally, and served by trigram indexes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../../src/data/import/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

const company = (id: number, name: string) => ({ id, type: 'company', name });
const FILES = {
  entities: [
    company(1, 'Airbnb'),
    company(2, 'Air Berlin'),
    company(3, 'FlyAir'),
    company(4, 'AIRTIME'),
    company(5, 'Stripe'),
    company(6, '100% Organic'),
    company(7, 'snake_case Labs'),
    company(8, 'Hairdresser Direct'),
  ],
  founders: [
    { id: 1, name: 'Brian Chesky', companies: [{ entity_id: 1 }] },
    { id: 2, name: 'Patrick Collison', companies: [{ entity_id: 5 }] },
  ],
  // Funding decides the rank of a search: Air Berlin raised most, then Airbnb, then AIRTIME.
  transactions: [
    { id: 1, entity_id: 2, round_type: 'series_a', date: '2010-01-01', amount_usd: 900_000_000 },
    { id: 2, entity_id: 1, round_type: 'series_a', date: '2011-01-01', amount_usd: 112_000_000 },
    { id: 3, entity_id: 4, round_type: 'seed', date: '2012-01-01', amount_usd: 1_000_000 },
  ],
  news: [
    { id: 1, url: 'https://example.org/1', title: 'Airbnb raises a Series A', publish_date: '2011-01-02' },
    { id: 2, url: 'https://example.org/2', title: 'Stripe launches', publish_date: '2011-09-29' },
  ],
};

let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  const dir = await mkdtemp(join(tmpdir(), 'vda-search-'));
  try {
    for (const [resource, records] of Object.entries(FILES)) {
      await writeFile(join(dir, `${resource}.jsonl`), records.map((record) => JSON.stringify(record)).join('\n'));
    }
    await importDirectory(app.db, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  client = await createApiKeyAndToken(app);
}, 60_000);

afterAll(async () => {
  await app.close();
});

type Row = Record<string, unknown>;
interface Body {
  data: Row[];
  error?: { code: string; message: string };
}

async function search(path: string, filter: string, extra = ''): Promise<{ status: number; body: Body }> {
  const response = await client.fetch(`${path}?filter=${encodeURIComponent(filter)}${extra}`);
  return { status: response.status, body: (await response.json()) as Body };
}

async function entityNames(filter: string, extra = ''): Promise<string[]> {
  const { status, body } = await search('/api/entities', filter, extra);
  expect(status, JSON.stringify(body.error)).toBe(200);
  return body.data.map((row) => row.name as string);
}

describe('name search on REST', () => {
  it('contains is case-insensitive and ranks the best-funded first, then by name', async () => {
    expect(await entityNames('name[contains]:AIR')).toEqual(['Air Berlin', 'Airbnb', 'AIRTIME', 'FlyAir', 'Hairdresser Direct']);
    expect(await entityNames('name[contains]:airbnb')).toEqual(['Airbnb']);
  });

  it('starts_with matches the beginning only', async () => {
    expect(await entityNames('name[starts_with]:air')).toEqual(['Air Berlin', 'Airbnb', 'AIRTIME']);
  });

  it('an explicit sort wins over the ranking', async () => {
    expect(await entityNames('name[starts_with]:air', '&sort=id')).toEqual(['Airbnb', 'Air Berlin', 'AIRTIME']);
  });

  it('takes % and _ literally', async () => {
    expect(await entityNames('name[contains]:%')).toEqual(['100% Organic']);
    expect(await entityNames('name[contains]:e_c')).toEqual(['snake_case Labs']);
  });

  it('works with the grammar’s spaces and inside combinators', async () => {
    expect(await entityNames('and(name[contains]: air b , launch_year:null)')).toEqual(['Air Berlin']);
    expect(await entityNames('or(name[starts_with]:stri, name[contains]:" organic")')).toEqual(['100% Organic', 'Stripe']);
  });

  it('searches founders by name and news by title', async () => {
    const founders = await search('/api/founders', 'name[contains]:collison');
    expect(founders.body.data.map((row) => row.name)).toEqual(['Patrick Collison']);
    const news = await search('/api/news', 'title[contains]:series a');
    expect(news.body.data.map((row) => row.title)).toEqual(['Airbnb raises a Series A']);
    const investors = await search('/api/investors', 'name[contains]:nobody');
    expect(investors.status).toBe(200);
  });

  it('takes one value, and only on text fields', async () => {
    const list = await search('/api/entities', 'name[contains]:a|b');
    expect(list.status).toBe(400);
    expect(list.body.error?.code).toBe('FILTER_VALIDATION_ERROR');
    const year = await search('/api/entities', 'launch_year[contains]:20');
    expect(year.status).toBe(400);
    expect(year.body.error?.code).toBe('UNSUPPORTED_OPERATOR');
  });

  it('GET /api/filters/entities lists the operators', async () => {
    const response = await client.fetch('/api/filters/entities');
    const { data } = (await response.json()) as { data: { name: string; operators: string[] }[] };
    expect(data.find((field) => field.name === 'name')?.operators).toEqual(
      expect.arrayContaining(['contains', 'starts_with']),
    );
    expect(data.find((field) => field.name === 'launch_year')?.operators).not.toContain('contains');
  });
});

describe('name search on GraphQL', () => {
  it('is the same grammar and the same ranking', async () => {
    const { body } = await client.graphql('query($f: String) { entities(filter: $f) { data { name } } }', {
      f: 'name[contains]:AIR',
    });
    expect(body.errors).toBeUndefined();
    expect((body.data!.entities as { data: Row[] }).data.map((row) => row.name)).toEqual(await entityNames('name[contains]:AIR'));
  });
});

describe('served by trigram indexes', () => {
  // 20,000 rows per table: below a few thousand the planner rightly prefers scanning a btree.
  let large: TestDatabase;
  const ROWS = 'FROM generate_series(1, 20000) AS g';

  beforeAll(async () => {
    large = await createTestDatabase();
    await large.sql.exec(`
      INSERT INTO entities (uuid, slug, type, name) SELECT gen_random_uuid(), 'e' || g, 'company', md5(g::text) ${ROWS};
      INSERT INTO founders (uuid, slug, name) SELECT gen_random_uuid(), 'f' || g, md5(g::text) ${ROWS};
      INSERT INTO news_articles (url, title, publish_date) SELECT 'https://example.org/' || g, md5(g::text), now() ${ROWS};
      ANALYZE entities; ANALYZE founders; ANALYZE news_articles;`);
  }, 120_000);

  afterAll(async () => {
    await large.destroy();
  });

  it.each([
    ['entities', 'name', 'entities_name_trgm_idx'],
    ['founders', 'name', 'founders_name_trgm_idx'],
    ['news_articles', 'title', 'news_articles_title_trgm_idx'],
  ])('%s.%s ILIKE uses %s', async (table, column, index) => {
    const plan = await large.sql.transaction(async (tx) => {
      // A narrow table this size is still cheaper to read whole; price that out, as sort-indexes does.
      await tx.exec('SET LOCAL enable_seqscan = off');
      const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM ${table} WHERE ${column} ILIKE '%qzx%'`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan, plan).toContain(`Bitmap Index Scan on ${index}`);
  });
});
