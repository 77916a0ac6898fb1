// The public surface: compileFilter, the registry as clients see it, and sorting.
import { describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import {
  compileFilter,
  describeFilterFields,
  fieldRegistry,
  isResource,
  RESOURCES,
  sortableFields,
  type Resource,
} from '../../../src/filter/index.ts';
import { expectFilterError, thrownBy } from './helpers.ts';

describe('compileFilter', () => {
  test.each([undefined, null, '', '   ', '\n\t'])('%j is no filter', (text) => {
    const compiled = compileFilter('entities', text);
    expect(compiled.where).toBeUndefined();
    expect(compiled.deprecatedOperatorUsed).toBe(false);
    expect(compiled.namesField('deleted_at')).toBe(false);
  });

  test('a filter compiles to its where, with the deprecation flag and the fields it names', () => {
    const compiled = compileFilter('entities', 'or(deleted_at[gte]:2026-01-01, name[in]:a)');
    expect(compiled.where).toEqual({
      OR: [{ deleted_at: { gte: new Date('2026-01-01T00:00:00Z') } }, { name: { in: ['a'] } }],
    });
    expect(compiled.deprecatedOperatorUsed).toBe(true);
    expect(compiled.namesField('deleted_at')).toBe(true);
    expect(compiled.namesField('name')).toBe(true);
    expect(compiled.namesField('launch_year')).toBe(false);
  });

  test.each<[string, boolean]>([
    ['deleted_at:null', true],
    ['entity.deleted_at[neq]:null', true],
    ['and(name:x, or(is_company:true, deleted_at[gte]:2026-01-01))', true],
    ['name:deleted_at', false],
    ['investor__launch_year:2000', false],
  ])('namesField("deleted_at") for %j is %s', (text, names) => {
    expect(compileFilter('entities', text).namesField('deleted_at')).toBe(names);
  });

  test('each stage’s error comes through unchanged', () => {
    expectFilterError(thrownBy(() => compileFilter('entities', 'a[')), 'FILTER_PARSE_ERROR', 'position 2');
    expectFilterError(thrownBy(() => compileFilter('entities', 'nope:1')), 'UNKNOWN_FILTER', "'nope'");
    expectFilterError(thrownBy(() => compileFilter('entities', 'name[gt]:1|2')), 'FILTER_VALIDATION_ERROR', 'one value');
    expectFilterError(thrownBy(() => compileFilter('news', 'tags[in_any]:1')), 'UNKNOWN_FILTER', 'on news');
  });
});

describe('the registry', () => {
  // The complete list of filterable fields per resource: the API record's scalar fields, its repeated
  // relations by id, and the derived fields the contract names.
  const FIELDS: Record<Resource, string[]> = {
    entities: [
      'id', 'uuid', 'type', 'is_company', 'is_investor', 'is_university', 'is_crowdfunding', 'is_government',
      'is_non_profit', 'is_founder', 'name', 'tagline', 'image', 'platform_url', 'website', 'external_id', 'launch_year', 'hq_country',
      'hq_city', 'lat', 'lon', 'created_at', 'updated_at', 'deleted_at', 'total_funding_usd', 'is_unicorn',
      'location', 'tags', 'founders', 'investors',
    ],
    founders: [
      'id', 'uuid', 'name', 'tagline', 'image', 'platform_url', 'gender', 'is_serial_founder', 'is_super_founder',
      'is_promising_founder', 'is_strong_founder', 'launch_year', 'hq_country', 'hq_city', 'location_country',
      'tags', 'companies', 'education', 'backgrounds',
    ],
    investors: [
      'id', 'uuid', 'name', 'type', 'image', 'platform_url', 'hq_country', 'hq_city', 'launch_year',
      'total_invested_usd', 'investments_count', 'portfolio_count', 'exits_count', 'lead_investments_count',
      'tags', 'portfolio',
    ],
    transactions: ['id', 'entity_id', 'round_type', 'amount_usd', 'currency', 'date', 'valuation_usd', 'source_url', 'investors'],
    valuations: ['id', 'entity_id', 'valuation_usd', 'date', 'source', 'transaction_id'],
    news: [
      'id', 'url', 'title', 'summary', 'image_url', 'source', 'article_type', 'publish_date', 'language',
      'amount_usd', 'round_type', 'deal_date', 'sector', 'hq_country', 'enriched_summary', 'relevance_score',
      'hub_score', 'entities',
    ],
  };

  test.each(RESOURCES)('%s has exactly its fields', (resource) => {
    expect([...fieldRegistry(resource).fields.keys()]).toEqual(FIELDS[resource]);
  });

  test('isResource', () => {
    expect(RESOURCES.every(isResource)).toBe(true);
    expect(isResource('ecosystems')).toBe(false);
    expect(isResource('toString')).toBe(false);
  });

  test.each(RESOURCES)('%s: names parse as names, operators fit the type', (resource) => {
    for (const field of fieldRegistry(resource).fields.values()) {
      expect(field.name).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/);
      expect(field.operators.length).toBeGreaterThan(0);
      const listOperators = field.operators.includes('in_all') || field.operators.includes('nin_all');
      expect(listOperators).toBe(field.type === 'id_list');
    }
  });
});

describe('describeFilterFields (GET /api/filters/{resource})', () => {
  test('one row per field, investor__ fields included', () => {
    const rows = describeFilterFields('entities');
    expect(rows.find((row) => row.name === 'launch_year')).toEqual({
      name: 'launch_year',
      type: 'int',
      operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in_any', 'nin_any'],
      sortable: true,
      nullable: true,
    });
    expect(rows.find((row) => row.name === 'tags')).toEqual({
      name: 'tags',
      type: 'id_list',
      operators: ['in_any', 'nin_any', 'in_all', 'nin_all'],
      sortable: false,
      nullable: false,
    });
    expect(rows.find((row) => row.name === 'location')).toEqual({
      name: 'location',
      type: 'location',
      operators: ['eq', 'neq', 'in_any', 'nin_any'],
      sortable: false,
      nullable: false,
      values_url: '/api/filters/location/values',
    });
    expect(rows.find((row) => row.name === 'investor__total_invested_usd')).toEqual({
      name: 'investor__total_invested_usd',
      type: 'money',
      operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in_any', 'nin_any'],
      sortable: false,
      nullable: false,
    });
    expect(rows.filter((row) => row.name.startsWith('investor__'))).toHaveLength(16);
    expect(rows).toHaveLength(30 + 16);
  });

  test('types as clients see them', () => {
    const typeOf = (resource: Resource, name: string) =>
      describeFilterFields(resource).find((row) => row.name === name)?.type;
    expect(typeOf('entities', 'uuid')).toBe('string');
    expect(typeOf('entities', 'lat')).toBe('number');
    expect(typeOf('news', 'amount_usd')).toBe('number');
    expect(typeOf('entities', 'is_unicorn')).toBe('bool');
    expect(typeOf('entities', 'created_at')).toBe('datetime');
    expect(typeOf('transactions', 'date')).toBe('date');
    expect(typeOf('transactions', 'amount_usd')).toBe('money');
  });

  test('founders’ location_country has the values hint', () => {
    expect(describeFilterFields('founders').find((row) => row.name === 'location_country')).toMatchObject({
      type: 'location',
      nullable: true,
      sortable: false,
      values_url: '/api/filters/location/values',
    });
  });
});

describe('sortableFields', () => {
  test('every scalar column of the record, not id lists, location or external ids', () => {
    expect([...sortableFields('entities').keys()]).toEqual(
      describeFilterFields('entities')
        .filter((row) => !row.name.includes('__') && !['id_list', 'location', 'external_id'].includes(row.type))
        .map((row) => row.name),
    );
    expect(sortableFields('founders').has('location_country')).toBe(false);
  });

  test('paths lead to the column, through relations where the column lives elsewhere', () => {
    const name = sortableFields('investors').get('name')!;
    expect(name.path).toEqual(['entity', 'name']);
    expect(name.orderBy('desc')).toEqual({ entity: { name: 'desc' } });
    expect(sortableFields('investors').get('total_invested_usd')!.orderBy('asc')).toEqual({ total_invested_usd: 'asc' });
    expect(sortableFields('news').get('publish_date')!.orderBy('desc')).toEqual({ publish_date: 'desc' });
  });

  test('nullable columns can place NULLs; others ignore the request', () => {
    const launchYear = sortableFields('entities').get('launch_year')!;
    expect(launchYear.nullable).toBe(true);
    expect(launchYear.orderBy('asc', 'last')).toEqual({ launch_year: { sort: 'asc', nulls: 'last' } });
    expect(launchYear.orderBy('asc')).toEqual({ launch_year: 'asc' });
    expect(sortableFields('entities').get('name')!.orderBy('asc', 'first')).toEqual({ name: 'asc' });
    expect(sortableFields('investors').get('launch_year')!.orderBy('desc', 'first')).toEqual({
      entity: { launch_year: { sort: 'desc', nulls: 'first' } },
    });
  });
});
