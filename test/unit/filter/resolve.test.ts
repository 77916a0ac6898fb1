// Resolve as a table: a syntactically valid filter → the error a client gets, or the typed values.
import { describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { parseFilter, resolveFilter, type Resource, type ResolvedCondition } from '../../../src/filter/index.ts';
import { expectFilterError, thrownBy } from './helpers.ts';

const resolve = (resource: Resource, text: string) => resolveFilter(parseFilter(text), resource);
const conditionOf = (resource: Resource, text: string) => resolve(resource, text).root as ResolvedCondition;

const INT = 'expected an integer from -2147483648 to 2147483647';
const DATE = 'expected a date (YYYY-MM-DD)';
const DATETIME = 'expected a date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS[.sss]][Z|+HH:MM|-HH:MM])';
const ORDERED = 'eq, neq, gt, gte, lt, lte, in_any, nin_any';

describe('UNKNOWN_FILTER: the field, prefix or relation is not filterable here', () => {
  test.each<[Resource, string, string]>([
    ['entities', 'launch_yeer:1', "Unknown filter field 'launch_yeer' at position 0 on entities; close matches: launch_year"],
    ['entities', 'nme:x', "Unknown filter field 'nme' at position 0 on entities; close matches: name"],
    ['entities', 'Name:x', "Unknown filter field 'Name' at position 0 on entities; close matches: name"],
    ['entities', 'and(a:1)', "Unknown filter field 'a' at position 4 on entities; no close match; GET /api/filters/entities lists the fields"],
    ['entities', 'funding:1', "Unknown filter field 'funding' at position 0 on entities; close matches: is_crowdfunding, total_funding_usd"],
    ['founders', 'is_super:true', 'close matches: is_super_founder'],
    ['founders', 'location:1', 'close matches: location_country'],
    ['investors', 'total_invested:1', 'close matches: total_invested_usd'],
    ['news', 'amount:1', 'close matches: amount_usd'],
    ['entities', 'slug:x', "Unknown filter field 'slug'"],
    ['entities', 'constructor:x', "Unknown filter field 'constructor'"],
    ['entities', 'toString:x', "Unknown filter field 'toString'"],
    ['entities', 'entity.hasOwnProperty:x', "Unknown filter field 'entity.hasOwnProperty'"],
    ['entities', 'country_location_id:1', "Unknown filter field 'country_location_id'"],
    ['founders', 'created_at[gte]:2026-01-01', "Unknown filter field 'created_at'"],
    // prefixes
    ['entities', 'foo.name:x', "Unknown filter field 'foo.name' at position 0 on entities (unknown reference 'foo.': only 'entity.' is allowed); close matches: name, investor__name"],
    ['entities', 'news.name:x', "(unknown reference 'news.': only 'entity.' is allowed)"],
    ['news', 'entity.source:x', "(unknown reference 'entity.': only 'news.' is allowed); close matches: source"],
    ['transactions', 'entity.id:1', "Unknown filter field 'entity.id' at position 0 on transactions (unknown reference 'entity.': transactions filters take no reference prefix); close matches: entity_id, id"],
    ['valuations', 'entity.date:2026-01-01', '(unknown reference \'entity.\': valuations filters take no reference prefix)'],
    // relations
    ['entities', 'founder__name:x', "Unknown filter field 'founder__name' at position 0 on entities (unknown relation 'founder__': only investor__)"],
    ['entities', 'investors__name:x', "(unknown relation 'investors__': only investor__); close matches: investor__name"],
    ['founders', 'investor__name:x', "(unknown relation 'investor__': founders filters have none)"],
    ['investors', 'investor__name:x', "(unknown relation 'investor__': investors filters have none)"],
    ['entities', 'investor__nme:x', "Unknown filter field 'investor__nme' at position 0 on entities; close matches: investor__name"],
    ['entities', 'investor__deleted_at:null', "Unknown filter field 'investor__deleted_at'"],
    ['entities', 'investor__location:1', "Unknown filter field 'investor__location'"],
  ])('%s %j', (resource, text, message) => {
    expectFilterError(thrownBy(() => resolve(resource, text)), 'UNKNOWN_FILTER', message);
  });

  test('a very long unknown name is shortened in the message', () => {
    const error = thrownBy(() => resolve('entities', `${'x'.repeat(3000)}:1`));
    expectFilterError(error, 'UNKNOWN_FILTER', `'${'x'.repeat(60)}…' at position 0`);
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('UNSUPPORTED_OPERATOR: the message lists the allowed operators', () => {
  test.each<[Resource, string, string]>([
    ['entities', 'is_unicorn[gt]:true', "Operator 'gt' is not supported on 'is_unicorn' at position 11; allowed: eq, neq"],
    ['entities', 'is_company[in_any]:true', 'allowed: eq, neq'],
    ['entities', 'launch_year[in_all]:1', `Operator 'in_all' is not supported on 'launch_year' at position 12 (in_all and nin_all apply only to id lists such as tags); allowed: ${ORDERED}`],
    ['entities', 'name[nin_all]:x', '(in_all and nin_all apply only to id lists such as tags)'],
    ['entities', 'tags:3', "Operator 'eq' is not supported on 'tags' at position 4; allowed: in_any, nin_any, in_all, nin_all"],
    ['entities', 'founders[gt]:3', 'allowed: in_any, nin_any, in_all, nin_all'],
    ['entities', 'name[like]:x', `Operator 'like' is not supported on 'name' at position 5; allowed: ${ORDERED}`],
    ['entities', 'name[EQ]:x', "Operator 'EQ' is not supported"],
    ['entities', 'name[in_]:x', "Operator 'in_' is not supported"],
    ['entities', 'name[constructor]:x', "Operator 'constructor' is not supported"],
    ['entities', 'name[__proto__]:x', "Operator '__proto__' is not supported"],
    ['entities', 'name[toString]:x', "Operator 'toString' is not supported"],
    ['entities', 'uuid[gt]:00000000-0000-0000-0000-000000000000', 'allowed: eq, neq, in_any, nin_any'],
    ['entities', 'location[gte]:1', "Operator 'gte' is not supported on 'location' at position 9; allowed: eq, neq, in_any, nin_any"],
    ['entities', 'location[in_all]:1', 'allowed: eq, neq, in_any, nin_any'],
    ['founders', 'location_country[lt]:1', 'allowed: eq, neq, in_any, nin_any'],
    ['entities', 'entity.investor__tags:1', "Operator 'eq' is not supported on 'entity.investor__tags' at position 21"],
    ['news', 'news.entities[eq]:1', "on 'news.entities' at position 14"],
  ])('%s %j', (resource, text, message) => {
    expectFilterError(thrownBy(() => resolve(resource, text)), 'UNSUPPORTED_OPERATOR', message);
  });
});

describe('FILTER_VALIDATION_ERROR: the value does not fit the field', () => {
  test.each<[Resource, string, string]>([
    ['entities', 'launch_year[gte]:abc', `Invalid value for 'launch_year' at position 17: ${INT} but found 'abc'`],
    ['entities', 'launch_year:1.5', `${INT} but found '1.5'`],
    ['entities', 'launch_year:2147483648', `${INT} but found '2147483648'`],
    ['entities', 'launch_year:-2147483649', `${INT} but found '-2147483649'`],
    ['entities', 'launch_year:+1', `${INT} but found '+1'`],
    ['entities', 'launch_year:""', `${INT} but found ''`],
    ['entities', 'tags[in_any]:1|x', `Invalid value for 'tags' at position 15: ${INT} but found 'x'`],
    ['entities', 'total_funding_usd[gte]:1.5', "expected a whole number of US dollars but found '1.5'"],
    ['entities', 'total_funding_usd[gte]:9223372036854775808', 'expected a whole number of US dollars'],
    ['entities', 'total_funding_usd[gte]:1e6', 'expected a whole number of US dollars'],
    ['entities', 'lat:abc', "expected a number such as 12 or -3.5 but found 'abc'"],
    ['entities', 'lat:1e5', 'expected a number such as 12 or -3.5'],
    ['entities', 'lat:1.', 'expected a number such as 12 or -3.5'],
    ['entities', 'lat:.5', 'expected a number such as 12 or -3.5'],
    ['entities', 'lat:NaN', 'expected a number such as 12 or -3.5'],
    ['entities', `lat:1${'0'.repeat(400)}`, 'expected a number such as 12 or -3.5'],
    ['news', 'amount_usd[gte]:1.2.3', "Invalid value for 'amount_usd' at position 16: expected a number such as 12 or -3.5"],
    ['entities', 'is_unicorn:yes', "Invalid value for 'is_unicorn' at position 11: expected true or false but found 'yes'"],
    ['entities', 'is_unicorn:TRUE', 'expected true or false'],
    ['entities', 'is_unicorn:1', 'expected true or false'],
    ['entities', 'uuid:abc', "expected a UUID but found 'abc'"],
    ['entities', 'uuid:00000000-0000-0000-0000-00000000000g', 'expected a UUID'],
    ['entities', 'name:"a\u0000b"', "expected text without NUL characters or unpaired surrogates but found 'a\\u0000b'"],
    ['entities', 'name:"\ud800"', 'expected text without NUL characters or unpaired surrogates'],
    ['entities', 'name:"x\udc00"', 'expected text without NUL characters or unpaired surrogates'],
    // dates and date-times
    ['transactions', 'date[gte]:2026-13-01', `${DATE} but found '2026-13-01'`],
    ['transactions', 'date:2026-02-29', DATE],
    ['transactions', 'date:2026-04-31', DATE],
    ['transactions', 'date:0000-01-01', DATE],
    ['transactions', 'date:2026-1-1', DATE],
    ['transactions', 'date:20260101', DATE],
    ['transactions', 'date:2026-01-01T00:00:00Z', `${DATE} but found '2026-01-01T00:00:00Z'`],
    ['valuations', 'date[lt]:yesterday', DATE],
    ['news', 'deal_date:2026/01/01', DATE],
    ['entities', 'created_at[gte]:2026-01-01T24:00:00Z', `${DATETIME} but found '2026-01-01T24:00:00Z'`],
    ['entities', 'created_at[gte]:2026-01-01T10:60Z', DATETIME],
    ['entities', 'created_at[gte]:2026-01-01T10:00:60Z', DATETIME],
    ['entities', 'created_at[gte]:2026-01-01T10:00:00.1234Z', DATETIME],
    ['entities', 'created_at[gte]:2026-01-01T10:00:00+24:00', DATETIME],
    ['entities', 'created_at[gte]:2026-01-01T10:00:00+0200', DATETIME],
    ['entities', 'created_at[gte]:2026-01-01t10:00:00z', DATETIME],
    ['entities', 'created_at[gte]:2026-01-01T10', DATETIME],
    ['entities', 'created_at[gte]:1767225600000', DATETIME],
    ['news', 'publish_date[lt]:2026-02-30T00:00:00Z', DATETIME],
    // how many values
    ['entities', 'name:a|b', "Invalid value for 'name' at position 7: eq takes one value but found 2 (use in_any for a list)"],
    ['entities', 'launch_year[gt]:1|2|3', 'gt takes one value but found 3'],
    ['entities', 'is_unicorn[neq]:true|false', 'neq takes one value but found 2'],
    // null
    ['entities', 'name:null', "Invalid value for 'name' at position 5: 'name' is never null, so null cannot be compared with it"],
    ['entities', 'is_unicorn[neq]:null', "'is_unicorn' is never null"],
    ['entities', 'tags[in_any]:null', "'tags' is never null"],
    ['entities', 'location:null', "'location' is never null"],
    ['entities', 'launch_year[gt]:null', "Invalid value for 'launch_year' at position 16: null goes only with eq or neq, not gt"],
    ['entities', 'launch_year[in_any]:1|null', 'null goes only with eq or neq, not in_any'],
    ['entities', 'deleted_at[in]:null', 'null goes only with eq or neq, not in'],
    ['entities', 'investor__launch_year[lte]:null', "Invalid value for 'investor__launch_year' at position 27"],
  ])('%s %j', (resource, text, message) => {
    expectFilterError(thrownBy(() => resolve(resource, text)), 'FILTER_VALIDATION_ERROR', message);
  });
});

describe('typed values', () => {
  const valuesOf = (resource: Resource, text: string) => conditionOf(resource, text).values;

  test.each<[Resource, string, unknown[]]>([
    ['entities', 'launch_year:2020', [2020]],
    ['entities', 'launch_year:"2020"', [2020]],
    ['entities', 'launch_year:-0', [0]],
    ['entities', 'launch_year:007', [7]],
    ['entities', 'launch_year:null', [null]],
    ['entities', 'launch_year[in_any]:1|2|2', [1, 2, 2]],
    ['entities', 'id:2147483647', [2147483647]],
    ['entities', 'total_funding_usd[gte]:9223372036854775807', [9223372036854775807n]],
    ['entities', 'total_funding_usd[gte]:-9223372036854775808', [-9223372036854775808n]],
    ['entities', 'lat:-12.5', [-12.5]],
    ['entities', 'lat:-0.0', [0]],
    ['news', 'amount_usd[gte]:1000000.50', ['1000000.50']],
    ['news', 'amount_usd[gte]:12345678901234567890.12', ['12345678901234567890.12']],
    ['entities', 'is_unicorn:true', [true]],
    ['entities', 'is_unicorn:"false"', [false]],
    ['entities', 'name:"null"', ['null']],
    ['entities', 'name:""', ['']],
    ['entities', 'name:🚀', ['🚀']],
    ['entities', 'uuid:0F0F0F0F-AAAA-4BBB-8CCC-DDDDDDDDDDDD', ['0f0f0f0f-aaaa-4bbb-8ccc-dddddddddddd']],
    ['transactions', 'date:2024-02-29', [new Date('2024-02-29T00:00:00Z')]],
    ['transactions', 'date:0001-01-01', [new Date('0001-01-01T00:00:00Z')]],
    ['entities', 'created_at:2026-01-01', [new Date('2026-01-01T00:00:00Z')]],
    ['entities', 'created_at:2026-01-01T10:20', [new Date('2026-01-01T10:20:00Z')]],
    ['entities', 'created_at:2026-01-01T10:20:30.5', [new Date('2026-01-01T10:20:30.500Z')]],
    ['entities', 'created_at:2026-01-01T00:30:00+02:00', [new Date('2025-12-31T22:30:00Z')]],
    ['entities', 'created_at:2026-01-01T23:30:00-01:30', [new Date('2026-01-02T01:00:00Z')]],
    ['entities', 'created_at:9999-12-31T23:59:59.999Z', [new Date('9999-12-31T23:59:59.999Z')]],
    ['entities', 'created_at:"2026-01-01T00:00:00Z"', [new Date('2026-01-01T00:00:00Z')]],
    ['entities', 'deleted_at[neq]:null', [null]],
    ['founders', 'location_country:null', [null]],
    ['entities', 'location[in_any]:3|4', [3, 4]],
  ])('%s %j', (resource, text, expected) => {
    expect(valuesOf(resource, text)).toEqual(expected);
  });

  test('the years below 100 stay themselves', () => {
    const [date] = valuesOf('transactions', 'date:0099-03-01') as [Date];
    expect(date.getUTCFullYear()).toBe(99);
  });
});

describe('the resolved tree', () => {
  test('operators become canonical; the written one is kept', () => {
    const condition = conditionOf('entities', 'name[in]:a|b');
    expect(condition).toMatchObject({ op: 'in_any', writtenOp: 'in', position: 0 });
    expect(conditionOf('entities', 'name[nin]:a')).toMatchObject({ op: 'nin_any', writtenOp: 'nin' });
    expect(conditionOf('entities', 'name:a')).toMatchObject({ op: 'eq', writtenOp: 'eq' });
  });

  test.each<[string, boolean]>([
    ['name:a', false],
    ['name[in_any]:a', false],
    ['name[in]:a', true],
    ['and(name:a, or(launch_year:1, tags[nin]:3))', true],
    ['entity.investor__tags[in]:3', true],
  ])('deprecatedOperatorUsed %j → %s', (text, used) => {
    expect(resolve('entities', text).deprecatedOperatorUsed).toBe(used);
  });

  test('fieldNames holds the resource’s own fields, with or without the prefix, wherever they appear', () => {
    const filter = resolve('entities', 'or(entity.deleted_at[gte]:2026-01-01, and(name:x, investor__launch_year:1))');
    expect([...filter.fieldNames].sort()).toEqual(['deleted_at', 'name']);
  });

  test('relations point at the related resource’s field', () => {
    const condition = conditionOf('entities', 'investor__name:Sequoia');
    expect(condition.relation).toMatchObject({ name: 'investor', resource: 'investors' });
    expect(condition.field).toMatchObject({ name: 'name', target: 'column', path: ['entity', 'name'] });
  });

  test.each<[Resource, string]>([
    ['entities', 'entity.name:x'],
    ['founders', 'entity.name:x'],
    ['investors', 'entity.name:x'],
    ['news', 'news.title:x'],
  ])('%s accepts %j', (resource, text) => {
    expect(conditionOf(resource, text).field.name).toBe(text.split('.')[1]!.split(':')[0]);
  });

  test('checks run in order: prefix, field, operator, value count, values', () => {
    expect(thrownBy(() => resolve('entities', 'foo.nope[bad]:x|y')).code).toBe('UNKNOWN_FILTER');
    expect(thrownBy(() => resolve('entities', 'nope[bad]:x|y')).code).toBe('UNKNOWN_FILTER');
    expect(thrownBy(() => resolve('entities', 'launch_year[bad]:x|y')).code).toBe('UNSUPPORTED_OPERATOR');
    expect(thrownBy(() => resolve('entities', 'launch_year:x|y')).message).toContain('eq takes one value');
    expect(thrownBy(() => resolve('entities', 'and(launch_year:1, launch_year:x)')).message).toContain('position 31');
  });
});
