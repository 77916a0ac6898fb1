/**
 * Finds or creates the `locations` rows behind hq_country / hq_city. Countries have no parent; a city's
 * parent is its country (or none when the record names no country). The unique index on
 * (kind, name, parent_id) does not stop duplicate parent-less rows (NULLs are distinct), so rows are
 * looked up before they are inserted, and a cache keeps that to one query per new name.
 * City names are matched to the spelling already known in the country (city-names.ts), and
 * `consolidateCities` merges the misspellings an import left behind.
 */
import { alpha3FromCountryName } from '../../countries.ts';
import { findSpelling, knownCity, type KnownCity } from './city-names.ts';
import type { SqlTx } from '../../sql/unnest.ts';

export class LocationResolver {
  private readonly countries = new Map<string, number>();
  /** `cityKey(name as given, countryId)` → the row it resolved to. */
  private readonly cities = new Map<string, KnownCity>();
  /** Per country id (NO_COUNTRY for none): city name → row. */
  private readonly knownByCountry = new Map<number, Map<string, KnownCity>>();
  /** Per country id: a spelling merged by an earlier import → the city it stands for. */
  private readonly spellingsByCountry = new Map<number, Map<string, KnownCity>>();

  constructor(private readonly tx: SqlTx) {}

  /** Resolves every country name in the batch; '' maps to null. */
  async countryIds(names: readonly string[]): Promise<Map<string, number>> {
    const missing = unique(names).filter((name) => name && !this.countries.has(name));
    if (missing.length > 0) {
      const found = await this.tx.query<{ id: number; name: string }>(
        `SELECT min(id) AS id, name FROM locations WHERE kind = 'country' AND parent_id IS NULL AND name = ANY($1::text[]) GROUP BY name`,
        [missing],
      );
      for (const row of found) this.countries.set(row.name, row.id);
      const toCreate = missing.filter((name) => !this.countries.has(name));
      if (toCreate.length > 0) {
        const created = await this.tx.query<{ id: number; name: string }>(
          `INSERT INTO locations (kind, name, country_code, parent_id)
           SELECT 'country', n, c, NULL FROM unnest($1::text[], $2::text[]) AS u(n, c) RETURNING id, name`,
          [toCreate, toCreate.map((name) => alpha3FromCountryName(name) ?? null)],
        );
        for (const row of created) this.countries.set(row.name, row.id);
      }
    }
    return this.countries;
  }

  /**
   * Resolves (city, country) pairs to city rows, taking each name to the spelling already known in
   * that country when it is one (see city-names.ts). The key of the returned map is
   * `cityKey(city, countryId)` of the name as given; the value carries the row's name, which is what
   * the record should store.
   */
  async cityIds(pairs: readonly { city: string; countryId: number | null }[]): Promise<Map<string, KnownCity>> {
    const wanted = new Map<string, { city: string; countryId: number | null }>();
    for (const pair of pairs) {
      const key = cityKey(pair.city, pair.countryId);
      if (pair.city && !this.cities.has(key)) wanted.set(key, pair);
    }
    await this.loadCities([...new Set([...wanted.values()].map((pair) => pair.countryId))]);
    const toCreate: { key: string; city: string; countryId: number | null }[] = [];
    for (const [key, pair] of wanted) {
      const known = this.citiesIn(pair.countryId);
      const found =
        known.get(pair.city) ??
        this.spellingsIn(pair.countryId).get(pair.city) ??
        findSpelling({ name: pair.city, uses: 0 }, known.values(), { typos: false });
      if (found) this.cities.set(key, found);
      else toCreate.push({ key, ...pair });
    }
    if (toCreate.length > 0) {
      // One row per distinct (name, country), even when the batch names it in several ways.
      const distinct = [...new Map(toCreate.map((p) => [cityKey(p.city, p.countryId), p])).values()];
      const created = await this.tx.query<{ id: number; name: string; parent_id: number | null }>(
        `INSERT INTO locations (kind, name, parent_id) SELECT 'city', n, p FROM unnest($1::text[], $2::int[]) AS u(n, p)
         RETURNING id, name, parent_id`,
        [distinct.map((p) => p.city), distinct.map((p) => p.countryId)],
      );
      for (const row of created) {
        const city = knownCity(row.id, row.name, 0);
        this.citiesIn(row.parent_id).set(row.name, city);
        this.cities.set(cityKey(row.name, row.parent_id), city);
      }
    }
    return this.cities;
  }

  private spellingsIn(countryId: number | null): Map<string, KnownCity> {
    return this.spellingsByCountry.get(countryId ?? NO_COUNTRY) ?? new Map();
  }

  private citiesIn(countryId: number | null): Map<string, KnownCity> {
    const key = countryId ?? NO_COUNTRY;
    let known = this.knownByCountry.get(key);
    if (!known) this.knownByCountry.set(key, (known = new Map()));
    return known;
  }

  /** The cities of these countries and their remembered spellings, once per country per import. */
  private async loadCities(countryIds: readonly (number | null)[]): Promise<void> {
    const missing = countryIds.filter((id) => !this.knownByCountry.has(id ?? NO_COUNTRY));
    if (missing.length === 0) return;
    const ids = missing.filter((id): id is number => id !== null);
    const rows = await this.tx.query<{ id: number; name: string; parent_id: number | null }>(
      `SELECT id, name, parent_id FROM locations
        WHERE kind = 'city' AND (parent_id = ANY($1::int[]) OR ($2 AND parent_id IS NULL))`,
      [ids, missing.includes(null)],
    );
    for (const id of missing) this.citiesIn(id);
    for (const row of rows) {
      const known = this.citiesIn(row.parent_id);
      // Duplicate parent-less rows can exist (NULLs are distinct in the unique key): keep the first.
      const existing = known.get(row.name);
      // Usage counts matter only to typos, which consolidateCities judges once the import is done.
      if (!existing || row.id < existing.id) known.set(row.name, knownCity(row.id, row.name, 0));
    }
    const spellings = await this.tx.query<{ parent_id: number; name: string; location_id: number }>(
      `SELECT parent_id, name, location_id FROM location_spellings WHERE parent_id = ANY($1::int[])`,
      [ids],
    );
    for (const row of spellings) {
      const city = [...this.citiesIn(row.parent_id).values()].find((known) => known.id === row.location_id);
      if (!city) continue;
      const map = this.spellingsByCountry.get(row.parent_id) ?? new Map<string, KnownCity>();
      this.spellingsByCountry.set(row.parent_id, map.set(row.name, city));
    }
  }
}

/** Stands for "no country" among the per-country maps. */
const NO_COUNTRY = -1;

export function cityKey(city: string, countryId: number | null): string {
  return `${countryId ?? ''}\u0000${city}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * After an import: merges each city row that is another spelling of a more used city in the same
 * country (city-names.ts) into it. Entities move to the kept row and take its name (and a new
 * `updated_at`, so clients syncing by it see the change); the emptied rows are deleted. Running it
 * again finds nothing to do.
 */
export async function consolidateCities(tx: SqlTx): Promise<number> {
  const rows = await tx.query<{ id: number; name: string; parent_id: number | null; uses: number }>(
    `SELECT l.id, l.name, l.parent_id, count(e.id)::int AS uses
       FROM locations l LEFT JOIN entities e ON e.city_location_id = l.id
      WHERE l.kind = 'city' AND l.parent_id IS NOT NULL
      GROUP BY l.id`,
  );
  const byCountry = new Map<number, KnownCity[]>();
  for (const row of rows) {
    const list = byCountry.get(row.parent_id!) ?? [];
    list.push(knownCity(row.id, row.name, row.uses));
    byCountry.set(row.parent_id!, list);
  }
  const target = new Map<number, KnownCity>();
  for (const cities of byCountry.values()) {
    for (const city of cities) {
      const spelling = findSpelling(city, cities);
      if (spelling) target.set(city.id, spelling);
    }
  }
  // A row merged into one that is itself merged ends at the last of the chain.
  const merges = [...target].map(([from, to]) => {
    let end = to;
    for (let hops = 0; target.has(end.id) && hops < 10; hops += 1) end = target.get(end.id)!;
    return { from, to: end };
  });
  if (merges.length === 0) return 0;
  const params = [merges.map((m) => m.from), merges.map((m) => m.to.id), merges.map((m) => m.to.name)];
  await tx.query(
    `UPDATE entities e SET city_location_id = m.to_id, hq_city = m.to_name, updated_at = now()
       FROM unnest($1::int[], $2::int[], $3::text[]) AS m(from_id, to_id, to_name)
      WHERE e.city_location_id = m.from_id`,
    params,
  );
  // Remember each merged name, and move spellings learnt earlier along with their city.
  await tx.query(
    `INSERT INTO location_spellings (parent_id, name, location_id)
     SELECT l.parent_id, l.name, m.to_id FROM unnest($1::int[], $2::int[]) AS m(from_id, to_id) JOIN locations l ON l.id = m.from_id
     ON CONFLICT (parent_id, name) DO UPDATE SET location_id = excluded.location_id`,
    params.slice(0, 2),
  );
  await tx.query(
    `UPDATE location_spellings s SET location_id = m.to_id FROM unnest($1::int[], $2::int[]) AS m(from_id, to_id)
      WHERE s.location_id = m.from_id`,
    params.slice(0, 2),
  );
  await tx.query(`DELETE FROM locations WHERE id = ANY($1::int[])`, [params[0]]);
  return merges.length;
}
