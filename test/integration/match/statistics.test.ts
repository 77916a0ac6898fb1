/**
 * What matching's comparisons are weighed by, kept beside the data (the match_linkage migration): the
 * name variants and words, kept by triggers in the transaction that adds a name, and the word counts
 * and u probabilities, derived after every import as the other derived counts are. Each is checked
 * against the same figure computed here from the entities themselves.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../../src/data/import/index.ts';
import { refreshStaleMatchStatistics } from '../../../src/match/statistics.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
let scratch: string;

const ENTITIES = [
  { id: 1, name: 'Scale Arc', hq_country: 'United States', hq_city: 'San Francisco', launch_year: 2009, website: 'scalearc.com' },
  { id: 2, name: 'Cortex Healthcare Inc.', hq_country: 'United States', hq_city: 'Boston', launch_year: 2010 },
  { id: 3, name: 'Color Labs', hq_country: 'United States', hq_city: 'Palo Alto', launch_year: 2010, website: 'https://color.com' },
  { id: 4, name: 'Mesh Labs', hq_country: 'Germany', hq_city: 'Berlin', launch_year: 2014 },
  { id: 5, name: 'Colour Labs', hq_country: 'France', launch_year: 2014 },
  { id: 6, name: 'Mesh Labs', hq_country: 'Germany', hq_city: 'Munich', website: 'https://www.facebook.com/meshlabs' },
];

async function load(entities: object[]): Promise<void> {
  await writeFile(join(scratch, 'entities.jsonl'), entities.map((entity) => JSON.stringify({ type: 'company', ...entity })).join('\n'));
  await importDirectory(db, scratch);
}

const statistics = async () =>
  new Map((await db.sql.query<{ key: string; value: number }>(`SELECT comparison || '.' || level AS key, value FROM match_statistics`)).map((row) => [row.key, Number(row.value)]));

/** 1 - Σ (n / total)²: the chance that two entities with the value disagree on it. */
function disagree(values: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return 1 - [...counts.values()].reduce((sum, n) => sum + (n / values.length) ** 2, 0);
}

beforeAll(async () => {
  db = await createTestDatabase();
  scratch = await mkdtemp(join(tmpdir(), 'vda-match-statistics-'));
  await load(ENTITIES);
});

afterAll(async () => {
  await db?.destroy();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('match statistics', () => {
  it('count the entities carrying each word of their normalised name', async () => {
    const rows = await db.sql.query<{ word: string; entities: number }>('SELECT word, entities FROM entity_name_word_counts ORDER BY word');
    expect(rows.map((row) => [row.word, Number(row.entities)])).toEqual([
      ['arc', 1], ['color', 1], ['colour', 1], ['cortex', 1], ['healthcare', 1], ['labs', 4], ['mesh', 2], ['scale', 1],
    ]);
  });

  it('give each comparison the u its values give, and how many entities have it', async () => {
    const stats = await statistics();
    expect(stats.get('hq_country.disagree')).toBeCloseTo(disagree(ENTITIES.map((e) => e.hq_country)), 10);
    expect(stats.get('hq_city.disagree')).toBeCloseTo(disagree(ENTITIES.flatMap((e) => (e.hq_city ? [`${e.hq_country}/${e.hq_city}`] : []))), 10);
    expect(stats.get('hq_country.entities')).toBe(6);
    expect(stats.get('hq_city.entities')).toBe(5);
    expect(stats.get('website.entities')).toBe(3);
    expect(stats.get('name.entities')).toBe(6);
    // Launch years 2009, 2010, 2010, 2014, 2014 (25 ordered pairs): the same year 1+4+4, one apart 2+2.
    expect(stats.get('launch_year.same')).toBeCloseTo(9 / 25, 10);
    expect(stats.get('launch_year.one_apart')).toBeCloseTo(4 / 25, 10);
    expect(stats.get('launch_year.far')).toBeCloseTo(12 / 25, 10);
    // 15 pairs of 6 entities: Mesh Labs twice is one pair of one name; Color / Colour Labs one pair one edit apart.
    expect(stats.get('name.exact')).toBeCloseTo((1 + 1) / (15 + 1), 10);
    expect(stats.get('name.one_edit')).toBeCloseTo((1 + 1) / (15 + 1), 10);
  });

  it('are derived again by the next import', async () => {
    await load([...ENTITIES, { id: 7, name: 'Mesh Robotics', hq_country: 'Germany' }]);
    const [mesh] = await db.sql.query<{ entities: number }>(`SELECT entities FROM entity_name_word_counts WHERE word = 'mesh'`);
    expect(Number(mesh!.entities)).toBe(3);
    expect((await statistics()).get('name.entities')).toBe(7);
  });

  it('index every listed name by its variants one edit apart and by its words, in the writing transaction', async () => {
    await db.sql.exec(`INSERT INTO entities (id, uuid, type, name, slug) VALUES (8, gen_random_uuid(), 'company', 'Sclae Arc Systems', 'sclae-arc-systems')`);
    const variants = await db.sql.query<{ name: string }>(
      `SELECT DISTINCT l.name FROM match_name_variants('scalearc') v JOIN entity_name_variants l ON l.variant = v ORDER BY 1`,
    );
    expect(variants.map((row) => row.name)).toEqual(['scale arc']);
    const words = await db.sql.query<{ word: string }>(`SELECT word FROM entity_name_words WHERE name = 'sclae arc systems' ORDER BY word`);
    expect(words.map((row) => row.word)).toEqual(['arc', 'sclae', 'systems']);
    // A variant of the new name: one letter from 'sclaearcsystems'.
    const [found] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM entity_name_variants WHERE variant = 'sclaearcsystem' AND name = 'sclae arc systems'`);
    expect(found!.n).toBe(1);
  });

  it('are derived again at start when entities written otherwise changed them by more than a tenth', async () => {
    const quiet = { info: () => undefined };
    expect((await statistics()).get('name.entities')).toBe(7);
    // The entity the test above wrote by SQL: 8 live against 7 counted, more than a tenth apart.
    expect(await refreshStaleMatchStatistics(db.sql, quiet)).toBe(true);
    expect((await statistics()).get('name.entities')).toBe(8);
    const [sclae] = await db.sql.query<{ entities: number }>(`SELECT entities FROM entity_name_word_counts WHERE word = 'sclae'`);
    expect(Number(sclae!.entities)).toBe(1);
    expect(await refreshStaleMatchStatistics(db.sql, quiet)).toBe(false);
  });
});
