import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeDerived } from '../../src/data/derived.ts';
import { seedDatabase, SeedRefusedError } from '../../src/data/seed/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { REFERENCE_TABLES, tableChecksums } from '../fixtures/import/helpers.ts';

const ENTITIES = 1_500;
let db: TestDatabase;
let firstRun: Record<string, string>;
let firstLocations: unknown[];

async function scalar(sql: string): Promise<number> {
  const [row] = await db.sql.query<{ n: number | string }>(sql);
  return Number(row?.n);
}

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: ENTITIES });
  firstRun = await tableChecksums(db.sql);
  firstLocations = await db.sql.query('SELECT id, kind, name, country_code, parent_id FROM locations ORDER BY id');
}, 120_000);

afterAll(async () => {
  await db.destroy();
});

describe('seedDatabase', () => {
  it('fills every reference table', async () => {
    for (const table of REFERENCE_TABLES) expect(await scalar(`SELECT COUNT(*) AS n FROM ${table}`), table).toBeGreaterThan(0);
    expect(await scalar('SELECT COUNT(*) AS n FROM entities')).toBe(ENTITIES);
    expect(await scalar(`SELECT COUNT(*) AS n FROM entities WHERE type = 'investor'`)).toBe(ENTITIES / 25);
    expect(await scalar(`SELECT COUNT(*) AS n FROM entities WHERE type = 'university'`)).toBe(3);
  });

  it('has the shape of real data: unicorns, leads, soft deletions, exits', async () => {
    expect(await scalar('SELECT COUNT(*) AS n FROM valuations WHERE valuation_usd >= 1000000000')).toBeGreaterThan(0);
    expect(await scalar('SELECT COUNT(*) AS n FROM entities WHERE is_unicorn')).toBeGreaterThan(0);
    const deleted = await scalar('SELECT COUNT(*) AS n FROM entities WHERE deleted_at IS NOT NULL');
    expect(deleted).toBeGreaterThan(0);
    expect(deleted).toBeLessThan(ENTITIES * 0.03);
    expect(await scalar('SELECT COUNT(*) AS n FROM round_investors WHERE is_lead')).toBeGreaterThan(0);
    expect(await scalar(`SELECT COUNT(*) AS n FROM funding_rounds WHERE round_type IN ('acquisition', 'ipo')`)).toBeGreaterThan(0);
    expect(await scalar(`SELECT COUNT(*) AS n FROM founders WHERE is_serial_founder`)).toBeGreaterThan(0);
  });

  it('keeps relations consistent', async () => {
    const violations = [
      `SELECT COUNT(*) AS n FROM round_investors ri JOIN entities e ON e.id = ri.investor_id WHERE e.type <> 'investor' OR NOT e.is_investor`,
      `SELECT COUNT(*) AS n FROM (SELECT round_id FROM round_investors WHERE is_lead GROUP BY round_id HAVING COUNT(*) > 1) x`,
      `SELECT COUNT(*) AS n FROM founder_education fe JOIN entities e ON e.id = fe.university_id WHERE e.type <> 'university'`,
      `SELECT COUNT(*) AS n FROM founder_companies fc JOIN entities e ON e.id = fc.entity_id WHERE e.type <> 'company'`,
      `SELECT COUNT(*) AS n FROM founders f WHERE NOT EXISTS (SELECT 1 FROM founder_companies fc WHERE fc.founder_id = f.id)`,
      `SELECT COUNT(*) AS n FROM news_articles n WHERE NOT EXISTS (SELECT 1 FROM news_entities ne WHERE ne.news_id = n.id AND ne.is_primary)`,
      `SELECT COUNT(*) AS n FROM entities e JOIN locations c ON c.id = e.city_location_id WHERE c.parent_id <> e.country_location_id OR c.name <> e.hq_city`,
      `SELECT COUNT(*) AS n FROM valuations v JOIN funding_rounds r ON r.id = v.transaction_id WHERE r.entity_id <> v.entity_id`,
      `SELECT COUNT(*) AS n FROM founders f WHERE f.is_serial_founder <> ((SELECT COUNT(*) FROM founder_companies fc WHERE fc.founder_id = f.id) > 1)`,
    ];
    for (const sql of violations) expect(await scalar(sql), sql).toBe(0);
  });

  it('writes derived columns exactly as the recompute derives them', async () => {
    const derived = ['entities', 'investors'];
    const before = await tableChecksums(db.sql, derived);
    await db.sql.transaction((tx) => recomputeDerived(tx));
    expect(await tableChecksums(db.sql, derived)).toEqual(before);
    expect(await scalar(`SELECT COUNT(*) AS n FROM investors WHERE investments_count > 0`)).toBeGreaterThan(0);
  });

  it('moves sequences past the seeded ids', async () => {
    const entity = await db.prisma.entity.create({ data: { uuid: crypto.randomUUID(), slug: 'after-seed', type: 'company', name: 'After' } });
    expect(entity.id).toBe(ENTITIES + 1);
    const maxRound = await scalar('SELECT MAX(id) AS n FROM funding_rounds');
    const round = await db.prisma.fundingRound.create({ data: { slug: 'after-seed', entity_id: entity.id, round_type: 'seed', date: new Date('2025-01-01') } });
    expect(round.id).toBe(maxRound + 1);
    await db.prisma.entity.delete({ where: { id: entity.id } });
  });

  it('refuses a database that already holds reference data', async () => {
    await expect(seedDatabase(db, { entities: 10 })).rejects.toBeInstanceOf(SeedRefusedError);
    await expect(seedDatabase(db, { entities: 10 })).rejects.toThrow(/--replace/);
  });

  it('is deterministic: replacing with the same size and seed gives the same rows', async () => {
    await seedDatabase(db, { entities: ENTITIES, replace: true });
    expect(await tableChecksums(db.sql)).toEqual(firstRun);
  }, 120_000);

  it('gives other rows for another seed', async () => {
    await seedDatabase(db, { entities: ENTITIES, replace: true, seed: 7 });
    const other = await tableChecksums(db.sql);
    expect(other.entities).not.toEqual(firstRun.entities);
    // The fixed location rows are the same; only how many entities each has (entity_count) differs.
    const fixedLocations = 'SELECT id, kind, name, country_code, parent_id FROM locations ORDER BY id';
    expect(await db.sql.query(fixedLocations)).toEqual(firstLocations);
    expect(other.locations).not.toEqual(firstRun.locations);
  }, 120_000);

  it("leaves the search's name lists holding exactly the names of the rows after a replacing seed", async () => {
    for (const [list, table] of [['entity_search_names', 'entities'], ['founder_search_names', 'founders']]) {
      const listed = `SELECT name FROM ${list}`;
      const held = `SELECT search_name COLLATE "C" FROM ${table}`;
      expect(await scalar(`SELECT COUNT(*) AS n FROM (${listed} EXCEPT ${held}) d`), `${list}: names of no row`).toBe(0);
      expect(await scalar(`SELECT COUNT(*) AS n FROM (${held} EXCEPT ${listed}) d`), `${list}: names missing`).toBe(0);
      expect(await scalar(`SELECT COUNT(*) AS n FROM ${list}`)).toBeGreaterThan(100);
    }
  });
});
