// The in-memory evaluator's semantics, as a table; the database differential test relies on it.
import { describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { parseFilter, resolveFilter, type Resource } from '../../../src/filter/index.ts';
import { evaluateFilter, type FilterRecord } from './evaluate.ts';

const matches = (resource: Resource, text: string, record: FilterRecord) =>
  evaluateFilter(resolveFilter(parseFilter(text), resource), record);

const entity = (overrides: Partial<Record<string, unknown>> = {}): FilterRecord => ({
  id: 1,
  uuid: '0f0f0f0f-aaaa-4bbb-8ccc-dddddddddddd',
  name: 'Acme',
  launch_year: null,
  lat: 52.5,
  is_unicorn: false,
  total_funding_usd: 5_000_000n,
  created_at: new Date('2026-01-01T10:00:00Z'),
  deleted_at: null,
  country_location_id: 10,
  city_location_id: null,
  tags: [3, 7],
  founders: [],
  investors: [9],
  round_investors: [
    { id: 9, name: 'Big Fund', launch_year: null, total_invested_usd: 2_000_000n, hq_country: 'USA', tags: [1], portfolio: [1] },
  ],
  ...overrides,
});

describe('evaluateFilter', () => {
  test.each<[string, FilterRecord, boolean]>([
    // NULL: eq/neq and in_any/nin_any partition the rows; comparisons never match NULL
    ['launch_year:null', entity(), true],
    ['launch_year[neq]:null', entity(), false],
    ['launch_year[neq]:2020', entity(), true],
    ['launch_year[neq]:2020', entity({ launch_year: 2020 }), false],
    ['launch_year[nin_any]:2020|2021', entity(), true],
    ['launch_year[in_any]:2020|2021', entity(), false],
    ['launch_year[gt]:0', entity(), false],
    ['launch_year[lte]:3000', entity(), false],
    ['launch_year[gte]:2020', entity({ launch_year: 2020 }), true],
    // numbers, money, booleans, dates
    ['lat[gt]:52.4', entity(), true],
    ['lat:52.5', entity(), true],
    ['total_funding_usd[gte]:5000000', entity(), true],
    ['total_funding_usd[gt]:5000000', entity(), false],
    ['is_unicorn:false', entity(), true],
    ['is_unicorn[neq]:true', entity(), true],
    ['created_at[gte]:2026-01-01', entity(), true],
    ['created_at[gt]:2026-01-01T10:00:00Z', entity(), false],
    ['created_at:2026-01-01T12:00:00+02:00', entity(), true],
    ['created_at:2026-01-01T10:00:00Z', entity({ created_at: '2026-01-01T10:00:00.000Z' }), true],
    // strings: exact equality, code point order
    ['name:Acme', entity(), true],
    ['name:acme', entity(), false],
    ['name[gt]:A', entity(), true],
    ['name[lt]:B', entity(), true],
    ['name[gt]:\uffff', entity({ name: '🚀' }), true], // UTF-16 order would say otherwise
    ['uuid:0F0F0F0F-AAAA-4BBB-8CCC-DDDDDDDDDDDD', entity(), true],
    // location: the country or the city
    ['location:10', entity(), true],
    ['location[neq]:10', entity(), false],
    ['location[neq]:11', entity(), true],
    ['location[in_any]:11|10', entity(), true],
    ['location[nin_any]:11|12', entity(), true],
    // id lists
    ['tags[in_any]:3|99', entity(), true],
    ['tags[nin_any]:3|99', entity(), false],
    ['tags[nin_any]:98|99', entity(), true],
    ['tags[in_all]:3|7', entity(), true],
    ['tags[in_all]:3|99', entity(), false],
    ['tags[nin_all]:3|99', entity(), true],
    ['tags[nin_all]:3|7', entity(), false],
    ['founders[in_any]:1', entity(), false],
    ['founders[nin_all]:1', entity(), true],
    // investor__: some investor of some round
    ['investor__total_invested_usd[gte]:1000000', entity(), true],
    ['investor__hq_country[neq]:USA', entity(), false],
    ['investor__launch_year[neq]:2000', entity(), true],
    ['investor__tags[in_any]:1', entity(), true],
    ['investor__name:"Big Fund"', entity({ round_investors: [] }), false],
    ['investor__hq_country[neq]:USA', entity({ round_investors: [] }), false],
    // combinators
    ['and(name:Acme, tags[in_any]:3)', entity(), true],
    ['and(name:Acme, tags[in_any]:4)', entity(), false],
    ['or(name:Other, tags[in_any]:3)', entity(), true],
    ['or(launch_year:2020, launch_year[neq]:2020)', entity(), true],
  ])('entities %j', (text, record, expected) => {
    expect(matches('entities', text, record)).toBe(expected);
  });

  test.each<[string, unknown, boolean]>([
    ['amount_usd:1000000.5', '1000000.50', true],
    ['amount_usd[gt]:12345678901234567890.11', '12345678901234567890.12', true],
    ['amount_usd[gt]:12345678901234567890.12', '12345678901234567890.12', false],
    ['amount_usd[lt]:1000000000000000000000', '1e+21', false],
    ['amount_usd[neq]:1', null, true],
    ['amount_usd[gte]:0', null, false],
  ])('news %j with amount_usd %j', (text, amount, expected) => {
    expect(matches('news', text, { amount_usd: amount })).toBe(expected);
  });

  test('founders read location_country from location_country_id', () => {
    expect(matches('founders', 'location_country:3', { location_country_id: 3 })).toBe(true);
    expect(matches('founders', 'location_country[neq]:3', { location_country_id: null })).toBe(true);
  });

  test('a record missing what the filter needs is an error, not a quiet false', () => {
    expect(() => matches('entities', 'hq_city:Berlin', entity())).toThrow("record has no 'hq_city'");
    expect(() => matches('entities', 'location:1', { country_location_id: 1 })).toThrow("'city_location_id'");
  });
});
