// Locations as a user meets them after importing messy data: one spelling per city (case, suffixes,
// typos), no country posing as a city, look-ups ranked by use, and a re-import that changes nothing.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../../src/data/import/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

const US = 'United States';
const SF_SPELLINGS = ['SAN FRANCISCO', 'san francisco', 'San Francisco, CA', 'San Francsico', 'San-Francisco', ' San  Francisco '];
const cities: [string, string, number][] = [
  ['San Francisco', US, 12],
  ...SF_SPELLINGS.map((city): [string, string, number] => [city, US, 1]),
  ['Reston', US, 11],
  ['Weston', US, 1],
  ['Austin', US, 3],
  [US, US, 1],
  ['Singapore', 'Singapore', 2],
];
const ENTITIES = cities.flatMap(([hq_city, hq_country, count]) => Array.from({ length: count }, () => ({ hq_city, hq_country })))
  .map((place, index) => ({ id: index + 1, type: 'company', name: `Company ${index + 1}`, ...place }));

let app: TestApp;
let client: TestCredentials;
let dir: string;

async function importEntities(records: object[]): Promise<void> {
  await writeFile(join(dir, 'entities.jsonl'), records.map((record) => JSON.stringify(record)).join('\n'));
  await importDirectory(app.db, dir);
}

beforeAll(async () => {
  app = await startTestApp();
  dir = await mkdtemp(join(tmpdir(), 'vda-locations-'));
  await importEntities(ENTITIES);
  client = await createApiKeyAndToken(app);
}, 60_000);

afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

interface Place {
  id: number;
  name: string;
  kind: string;
  country: string | null;
}

async function lookUp(q: string): Promise<Place[]> {
  const response = await client.fetch(`/api/filters/location/values?q=${encodeURIComponent(q)}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Place[] }).data;
}

async function totalAt(locationId: number): Promise<number> {
  const response = await client.fetch(`/api/entities?filter=location:${locationId}&include_total=true&limit=1`);
  return ((await response.json()) as { page: { total: number } }).page.total;
}

describe('locations after an import of messy data', () => {
  it('offers one San Francisco that finds every spelling of it', async () => {
    const found = await lookUp('san');
    expect(found.map((place) => [place.name, place.kind, place.country])).toEqual([['San Francisco', 'city', US]]);
    expect(await totalAt(found[0]!.id)).toBe(12 + SF_SPELLINGS.length);
    const response = await client.fetch(`/api/entities?filter=${encodeURIComponent('hq_city:San Francisco')}&include_total=true`);
    expect(((await response.json()) as { page: { total: number } }).page.total).toBe(12 + SF_SPELLINGS.length);
  });

  it('keeps different towns apart, and a country is not a city', async () => {
    expect((await lookUp('weston')).map((place) => place.name)).toEqual(['Weston']);
    expect((await lookUp('united')).map((place) => [place.name, place.kind])).toEqual([[US, 'country']]);
    expect((await lookUp('singapore')).map((place) => place.kind).sort()).toEqual(['city', 'country']);
  });

  it('ranks look-ups by how many entities use each place', async () => {
    const names = (await lookUp('')).map((place) => place.name);
    expect(names.slice(0, 4)).toEqual([US, 'San Francisco', 'Reston', 'Austin']);
  });

  it('a re-import changes nothing, and a remembered misspelling resolves at once', async () => {
    const before = await app.db.sql.query<{ updated: string; cities: number }>(
      `SELECT max(updated_at)::text AS updated, (SELECT count(*) FROM locations WHERE kind = 'city')::int AS cities FROM entities`,
    );
    await importEntities(ENTITIES);
    const after = await app.db.sql.query(
      `SELECT max(updated_at)::text AS updated, (SELECT count(*) FROM locations WHERE kind = 'city')::int AS cities FROM entities`,
    );
    expect(after).toEqual(before);
    await importEntities([{ id: 1000, type: 'company', name: 'Late Comer', hq_city: 'San Francsico', hq_country: US }]);
    const late = await app.db.prisma.entity.findUniqueOrThrow({ where: { id: 1000 }, include: { hq_city_ref: true } });
    expect(late.hq_city).toBe('San Francisco');
    expect(late.hq_city_ref?.name).toBe('San Francisco');
  });
});
