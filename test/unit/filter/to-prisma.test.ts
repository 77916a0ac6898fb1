// Exact Prisma where inputs for representative filters: one row per translation rule.
import { describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { compileFilter, parseFilter, resolveFilter, toPrismaWhere, type Resource } from '../../../src/filter/index.ts';

const whereOf = (resource: Resource, text: string) => compileFilter(resource, text).where;
const utc = (iso: string) => new Date(iso);

describe('columns', () => {
  test.each<[string, unknown]>([
    ['launch_year:2020', { launch_year: { equals: 2020 } }],
    ['launch_year[eq]:null', { launch_year: null }],
    ['launch_year[neq]:null', { launch_year: { not: null } }],
    // neq and nin_any are the complements of eq and in_any: on a nullable column NULL matches them
    ['launch_year[neq]:2020', { OR: [{ launch_year: { not: 2020 } }, { launch_year: null }] }],
    ['launch_year[nin_any]:2020|2021', { OR: [{ launch_year: { notIn: [2020, 2021] } }, { launch_year: null }] }],
    ['name[neq]:Acme', { name: { not: 'Acme' } }],
    ['name[nin_any]:a|b', { name: { notIn: ['a', 'b'] } }],
    ['launch_year[gt]:2020', { launch_year: { gt: 2020 } }],
    ['launch_year[gte]:2020', { launch_year: { gte: 2020 } }],
    ['launch_year[lt]:2020', { launch_year: { lt: 2020 } }],
    ['launch_year[lte]:2020', { launch_year: { lte: 2020 } }],
    ['launch_year[in_any]:2020|2021', { launch_year: { in: [2020, 2021] } }],
    ['launch_year[in]:2020', { launch_year: { in: [2020] } }],
    ['launch_year[nin]:2020', { OR: [{ launch_year: { notIn: [2020] } }, { launch_year: null }] }],
    ['name[gte]:M', { name: { gte: 'M' } }],
    ['name:"null"', { name: { equals: 'null' } }],
    ['is_unicorn:true', { is_unicorn: { equals: true } }],
    ['is_unicorn[neq]:true', { is_unicorn: { not: true } }],
    ['total_funding_usd[gte]:1000000', { total_funding_usd: { gte: 1000000n } }],
    ['lat[lt]:-12.5', { lat: { lt: -12.5 } }],
    ['created_at[gte]:2026-01-01T00:00:00+02:00', { created_at: { gte: utc('2025-12-31T22:00:00Z') } }],
    ['deleted_at[gte]:2026-01-01', { deleted_at: { gte: utc('2026-01-01T00:00:00Z') } }],
    ['uuid:0F0F0F0F-AAAA-4BBB-8CCC-DDDDDDDDDDDD', { uuid: { equals: '0f0f0f0f-aaaa-4bbb-8ccc-dddddddddddd' } }],
    ['entity.hq_country:DEU', { hq_country: { equals: 'DEU' } }],
  ])('entities %j', (text, where) => {
    expect(whereOf('entities', text)).toEqual(where);
  });

  test.each<[Resource, string, unknown]>([
    ['transactions', 'date[gte]:2026-01-01', { date: { gte: utc('2026-01-01T00:00:00Z') } }],
    ['transactions', 'amount_usd:null', { amount_usd: null }],
    ['transactions', 'amount_usd[neq]:5', { OR: [{ amount_usd: { not: 5n } }, { amount_usd: null }] }],
    ['transactions', 'entity_id[in_any]:1|2', { entity_id: { in: [1, 2] } }],
    ['valuations', 'transaction_id:null', { transaction_id: null }],
    ['valuations', 'valuation_usd[gte]:1000000000', { valuation_usd: { gte: 1000000000n } }],
    ['news', 'amount_usd[gte]:1000000.50', { amount_usd: { gte: '1000000.50' } }],
    ['news', 'news.article_type[in_any]:funding|acquisition', { article_type: { in: ['funding', 'acquisition'] } }],
    ['news', 'deal_date[lt]:2026-01-01', { deal_date: { lt: utc('2026-01-01T00:00:00Z') } }],
    ['founders', 'is_super_founder:true', { is_super_founder: { equals: true } }],
    ['founders', 'location_country:3', { location_country_id: { equals: 3 } }],
    ['founders', 'location_country[neq]:3', { OR: [{ location_country_id: { not: 3 } }, { location_country_id: null }] }],
    ['founders', 'location_country:null', { location_country_id: null }],
  ])('%s %j', (resource, text, where) => {
    expect(whereOf(resource, text)).toEqual(where);
  });

  test.each<[string, unknown]>([
    ['id:5', { id: { equals: 5 } }],
    ['total_invested_usd[gte]:1000000', { total_invested_usd: { gte: 1000000n } }],
    ['name:Sequoia', { entity: { name: { equals: 'Sequoia' } } }],
    ['entity.launch_year[neq]:1999', { entity: { OR: [{ launch_year: { not: 1999 } }, { launch_year: null }] } }],
  ])('investors %j: entity fields sit behind the entity relation', (text, where) => {
    expect(whereOf('investors', text)).toEqual(where);
  });
});

describe('location: the HQ country or the HQ city', () => {
  test.each<[string, unknown]>([
    ['location:5', { OR: [{ country_location_id: { equals: 5 } }, { city_location_id: { equals: 5 } }] }],
    ['location[in_any]:5|6', { OR: [{ country_location_id: { in: [5, 6] } }, { city_location_id: { in: [5, 6] } }] }],
    [
      'location[neq]:5',
      {
        AND: [
          { OR: [{ country_location_id: { not: 5 } }, { country_location_id: null }] },
          { OR: [{ city_location_id: { not: 5 } }, { city_location_id: null }] },
        ],
      },
    ],
    [
      'location[nin_any]:5|6',
      {
        AND: [
          { OR: [{ country_location_id: { notIn: [5, 6] } }, { country_location_id: null }] },
          { OR: [{ city_location_id: { notIn: [5, 6] } }, { city_location_id: null }] },
        ],
      },
    ],
  ])('%j', (text, where) => {
    expect(whereOf('entities', text)).toEqual(where);
  });
});

describe('id lists', () => {
  test.each<[Resource, string, unknown]>([
    ['entities', 'tags[in_any]:3|7', { tags: { some: { tag_id: { in: [3, 7] } } } }],
    ['entities', 'tags[nin_any]:3|7', { tags: { none: { tag_id: { in: [3, 7] } } } }],
    ['entities', 'tags[in_all]:3|7|3', { AND: [{ tags: { some: { tag_id: 3 } } }, { tags: { some: { tag_id: 7 } } }] }],
    ['entities', 'tags[nin_all]:3|7', { OR: [{ tags: { none: { tag_id: 3 } } }, { tags: { none: { tag_id: 7 } } }] }],
    ['entities', 'tags[in]:3', { tags: { some: { tag_id: { in: [3] } } } }],
    ['entities', 'founders[in_any]:12', { founder_roles: { some: { is_founder: true, founder_id: { in: [12] } } } }],
    ['entities', 'founders[nin_all]:1|2', {
      OR: [
        { founder_roles: { none: { is_founder: true, founder_id: 1 } } },
        { founder_roles: { none: { is_founder: true, founder_id: 2 } } },
      ],
    }],
    ['entities', 'investors[in_any]:9', { rounds: { some: { investors: { some: { investor_id: { in: [9] } } } } } }],
    ['entities', 'investors[nin_any]:9', { rounds: { none: { investors: { some: { investor_id: { in: [9] } } } } } }],
    ['entities', 'investors[in_all]:8|9', {
      AND: [
        { rounds: { some: { investors: { some: { investor_id: 8 } } } } },
        { rounds: { some: { investors: { some: { investor_id: 9 } } } } },
      ],
    }],
    ['founders', 'tags[in_any]:1', { tags: { some: { tag_id: { in: [1] } } } }],
    ['founders', 'companies[in_all]:4', { AND: [{ companies: { some: { entity_id: 4 } } }] }],
    ['founders', 'education[in_any]:5', { education: { some: { university_id: { in: [5] } } } }],
    ['founders', 'backgrounds[nin_any]:2', { backgrounds: { none: { background_id: { in: [2] } } } }],
    ['investors', 'tags[in_any]:1', { entity: { tags: { some: { tag_id: { in: [1] } } } } }],
    ['investors', 'portfolio[in_any]:4', { rounds: { some: { round: { entity_id: { in: [4] } } } } }],
    ['investors', 'portfolio[nin_any]:4', { rounds: { none: { round: { entity_id: { in: [4] } } } } }],
    ['transactions', 'investors[in_any]:9', { investors: { some: { investor_id: { in: [9] } } } }],
    ['news', 'entities[in_all]:1|2', { AND: [{ entities: { some: { entity_id: 1 } } }, { entities: { some: { entity_id: 2 } } }] }],
  ])('%s %j', (resource, text, where) => {
    expect(whereOf(resource, text)).toEqual(where);
  });
});

describe('investor__: some round has some investor meeting the condition', () => {
  const viaInvestor = (investor: unknown) => ({ rounds: { some: { investors: { some: { investor } } } } });

  test.each<[string, unknown]>([
    ['investor__total_invested_usd[gte]:1000000', viaInvestor({ total_invested_usd: { gte: 1000000n } })],
    ['entity.investor__hq_country:USA', viaInvestor({ entity: { hq_country: { equals: 'USA' } } })],
    ['investor__launch_year[neq]:2000', viaInvestor({ entity: { OR: [{ launch_year: { not: 2000 } }, { launch_year: null }] } })],
    ['investor__tags[in_all]:1|2', viaInvestor({ AND: [{ entity: { tags: { some: { tag_id: 1 } } } }, { entity: { tags: { some: { tag_id: 2 } } } }] })],
    ['investor__portfolio[in_any]:7', viaInvestor({ rounds: { some: { round: { entity_id: { in: [7] } } } } })],
  ])('%j', (text, where) => {
    expect(whereOf('entities', text)).toEqual(where);
  });
});

describe('combinators', () => {
  test('and / or nest as AND / OR, in order', () => {
    expect(whereOf('entities', 'and(hq_country:DEU, or(launch_year[gte]:2020, is_unicorn:true), tags[in_any]:3)')).toEqual({
      AND: [
        { hq_country: { equals: 'DEU' } },
        { OR: [{ launch_year: { gte: 2020 } }, { is_unicorn: { equals: true } }] },
        { tags: { some: { tag_id: { in: [3] } } } },
      ],
    });
  });

  test('a one-child combinator stays a combinator', () => {
    expect(whereOf('entities', 'or(name:x)')).toEqual({ OR: [{ name: { equals: 'x' } }] });
  });
});

describe('toPrismaWhere over a resolved tree', () => {
  test('is the compiled where, and pure: the same tree gives equal, unshared objects', () => {
    const resolved = resolveFilter(parseFilter('and(name[in_any]:a|b, tags[in_all]:1)'), 'entities');
    const first = toPrismaWhere(resolved);
    const second = toPrismaWhere(resolved);
    expect(first).toEqual(second);
    expect(first).not.toBe(second);
    expect(first).toEqual(compileFilter('entities', 'and(name[in_any]:a|b, tags[in_all]:1)').where);
  });
});
