/**
 * What every batch of the seeder needs to know about the whole data set up front: which entity ids are
 * investors and universities (decided by the id alone, so any batch can point at them), and the ids of
 * the fixed locations, tags and backgrounds.
 */
import { COUNTRIES, type CityRef, type CountryRef } from './reference-data.ts';

export type SeedKind = 'company' | 'investor' | 'university';

/** About 4% investors and 0.2% universities, spread evenly over the id range. */
export function kindOf(id: number): SeedKind {
  if (id % 25 === 0) return 'investor';
  if (id % 500 === 7) return 'university';
  return 'company';
}

export interface PlacedCity {
  country: CountryRef;
  countryId: number;
  city: CityRef;
  cityId: number;
}

/** Countries take location ids 1..n in list order, their cities follow in the same order. */
export const PLACES: PlacedCity[] = (() => {
  let nextCityId = COUNTRIES.length + 1;
  return COUNTRIES.flatMap((country, index) =>
    country.cities.map((city) => ({ country, countryId: index + 1, city, cityId: nextCityId++ })),
  );
})();

export const PLACE_WEIGHTS = PLACES.map((place) => place.country.weight / place.country.cities.length);

export class Universe {
  readonly investorIds: number[] = [];
  readonly universityIds: number[] = [];

  constructor(
    readonly size: number,
    readonly seed: number,
  ) {
    for (let id = 1; id <= size; id += 1) {
      const kind = kindOf(id);
      if (kind === 'investor') this.investorIds.push(id);
      else if (kind === 'university') this.universityIds.push(id);
    }
  }
}

export interface IdCounters {
  founder: number;
  founderCompany: number;
  education: number;
  round: number;
  valuation: number;
  news: number;
}

export function newCounters(): IdCounters {
  return { founder: 0, founderCompany: 0, education: 0, round: 0, valuation: 0, news: 0 };
}
