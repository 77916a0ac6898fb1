/**
 * Finds or creates the `locations` rows behind hq_country / hq_city. Countries have no parent; a city's
 * parent is its country (or none when the record names no country). The unique index on
 * (kind, name, parent_id) does not stop duplicate parent-less rows (NULLs are distinct), so rows are
 * looked up before they are inserted, and a cache keeps that to one query per new name.
 */
import { alpha3FromCountryName } from '../../countries.ts';
import type { SqlTx } from '../../sql/unnest.ts';

export class LocationResolver {
  private readonly countries = new Map<string, number>();
  private readonly cities = new Map<string, number>();

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

  /** Resolves (city, country) pairs; the key of the returned map is `cityKey(city, countryId)`. */
  async cityIds(pairs: readonly { city: string; countryId: number | null }[]): Promise<Map<string, number>> {
    const wanted = new Map<string, { city: string; countryId: number | null }>();
    for (const pair of pairs) {
      const key = cityKey(pair.city, pair.countryId);
      if (pair.city && !this.cities.has(key)) wanted.set(key, pair);
    }
    if (wanted.size === 0) return this.cities;
    const list = [...wanted.values()];
    const params = [list.map((p) => p.city), list.map((p) => p.countryId)];
    const found = await this.tx.query<{ id: number; name: string; parent_id: number | null }>(
      `SELECT min(l.id) AS id, l.name, l.parent_id FROM locations l
         JOIN unnest($1::text[], $2::int[]) AS u(n, p) ON l.name = u.n AND l.parent_id IS NOT DISTINCT FROM u.p
        WHERE l.kind = 'city' GROUP BY l.name, l.parent_id`,
      params,
    );
    for (const row of found) this.cities.set(cityKey(row.name, row.parent_id), row.id);
    const toCreate = list.filter((p) => !this.cities.has(cityKey(p.city, p.countryId)));
    if (toCreate.length > 0) {
      const created = await this.tx.query<{ id: number; name: string; parent_id: number | null }>(
        `INSERT INTO locations (kind, name, parent_id) SELECT 'city', n, p FROM unnest($1::text[], $2::int[]) AS u(n, p)
         RETURNING id, name, parent_id`,
        [toCreate.map((p) => p.city), toCreate.map((p) => p.countryId)],
      );
      for (const row of created) this.cities.set(cityKey(row.name, row.parent_id), row.id);
    }
    return this.cities;
  }
}

export function cityKey(city: string, countryId: number | null): string {
  return `${countryId ?? ''}\u0000${city}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
