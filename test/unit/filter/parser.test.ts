// The grammar as a table (after PostgREST's parser tests): input → tree, input → error and position.
import { describe, expect, test } from 'vitest';
import { FILTER_LIMITS, parseFilter, parseOptionalFilter } from '../../../src/filter/index.ts';
import { and, cond, expectFilterError, or, q, thrownBy, withoutPositions } from './helpers.ts';

const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in_any', 'nin_any', 'in_all', 'nin_all', 'in', 'nin'];

describe('parseFilter: input → tree', () => {
  test.each<[string, unknown]>([
    // conditions and the shorthand
    ['launch_year:2020', cond('launch_year', 'eq', '2020')],
    ...OPERATORS.map((op): [string, unknown] => [`launch_year[${op}]:2020`, cond('launch_year', op, '2020')]),
    // any word parses as an operator; resolve decides whether it exists
    ['name[like]:x', cond('name', 'like', 'x')],
    ['name[EQ]:x', cond('name', 'EQ', 'x')],
    // lists
    ['tags[in_any]:12|40', cond('tags', 'in_any', '12', '40')],
    ['tags[in_all]:1|2|3|4', cond('tags', 'in_all', '1', '2', '3', '4')],
    ['name[in]:"New York"|Berlin|""', cond('name', 'in', q('New York'), 'Berlin', q(''))],
    // combinators
    ['and(a:1,b:2)', and(cond('a', 'eq', '1'), cond('b', 'eq', '2'))],
    ['or(a:1)', or(cond('a', 'eq', '1'))],
    ['and(a:1,or(b:2,and(c:3,d[gt]:4)),e:5)', and(cond('a', 'eq', '1'), or(cond('b', 'eq', '2'), and(cond('c', 'eq', '3'), cond('d', 'gt', '4'))), cond('e', 'eq', '5'))],
    ['or(or(or(a:1)))', or(or(or(cond('a', 'eq', '1'))))],
    // whitespace around expressions and values, never inside a name or an operator
    [' \t\n and ( a:1 ,\r\n b:2 ) \n', and(cond('a', 'eq', '1'), cond('b', 'eq', '2'))],
    ['and\n(a:1)', and(cond('a', 'eq', '1'))],
    ['  a:1  ', cond('a', 'eq', '1')],
    // and / or are keywords only before '('
    ['and:1', cond('and', 'eq', '1')],
    ['or[gt]:1', cond('or', 'gt', '1')],
    ['and(and:1,or:2)', and(cond('and', 'eq', '1'), cond('or', 'eq', '2'))],
    // prefixes and relations
    ['entity.name:Acme', cond('entity.name', 'eq', 'Acme')],
    ['news.source:techcrunch', cond('news.source', 'eq', 'techcrunch')],
    ['investor__total_invested_usd[gte]:1000000', cond('investor__total_invested_usd', 'gte', '1000000')],
    ['entity.investor__hq_country:USA', cond('entity.investor__hq_country', 'eq', 'USA')],
    ['foo.bar_baz__qux_2:1', cond('foo.bar_baz__qux_2', 'eq', '1')],
    // names: letters, digits, single underscores; case is kept
    ['field2:1', cond('field2', 'eq', '1')],
    ['a_b_c:1', cond('a_b_c', 'eq', '1')],
    ['Name:x', cond('Name', 'eq', 'x')],
    // quoted values: , ( ) | : whitespace, and the two escapes
    ['name:"a,b(c)|d:e f"', cond('name', 'eq', q('a,b(c)|d:e f'))],
    ['name:"say \\"hi\\" \\\\ ok"', cond('name', 'eq', q('say "hi" \\ ok'))],
    ['name:"line\nbreak\ttab"', cond('name', 'eq', q('line\nbreak\ttab'))],
    ['name:""', cond('name', 'eq', q(''))],
    ['name:"\\\\"', cond('name', 'eq', q('\\'))],
    // null: bare is NULL, quoted is text (the tree keeps the difference)
    ['deleted_at:null', cond('deleted_at', 'eq', 'null')],
    ['name:"null"', cond('name', 'eq', q('null'))],
    // bare values hold ':' '.' '-' '+' '[' ']' and anything non-ASCII
    ['created_at[gte]:2026-01-01T00:00:00Z', cond('created_at', 'gte', '2026-01-01T00:00:00Z')],
    ['created_at[lt]:2026-01-01T00:00:00.123+02:00', cond('created_at', 'lt', '2026-01-01T00:00:00.123+02:00')],
    ['lat[gte]:-12.5', cond('lat', 'gte', '-12.5')],
    ['x:a+b.c-d', cond('x', 'eq', 'a+b.c-d')],
    ['x:a]b[c', cond('x', 'eq', 'a]b[c')],
    ['x:a\\b', cond('x', 'eq', 'a\\b')],
    ["x:it's", cond('x', 'eq', "it's")],
    ['hq_city:Zürich', cond('hq_city', 'eq', 'Zürich')],
    // bare values hold spaces; whitespace around a value is trimmed
    ['hq_country:United States', cond('hq_country', 'eq', 'United States')],
    ['launch_year[gte]: 2020', cond('launch_year', 'gte', '2020')],
    ['a:  x \t', cond('a', 'eq', 'x')],
    ['a:1 b:2', cond('a', 'eq', '1 b:2')],
    ['tags[in_any]: 1 | 2 |3', cond('tags', 'in_any', '1', '2', '3')],
    ['name[in]: "New York" | Berlin', cond('name', 'in', q('New York'), 'Berlin')],
    ['and(hq_city:New York , launch_year: 2020)', and(cond('hq_city', 'eq', 'New York'), cond('launch_year', 'eq', '2020'))],
    ['a: " padded "', cond('a', 'eq', q(' padded '))],
    ['name:東京|🚀', cond('name', 'eq', '東京', '🚀')],
    ['name:a\u00a0b', cond('name', 'eq', 'a\u00a0b')],
    ['x:a:b::c', cond('x', 'eq', 'a:b::c')],
    // ';' and control characters are ordinary characters (resolve refuses NUL in text)
    ['and(a:1;b:2)', and(cond('a', 'eq', '1;b:2'))],
    ['a:1\u0000\u0007', cond('a', 'eq', '1\u0000\u0007')],
  ])('%j', (input, expected) => {
    expect(withoutPositions(parseFilter(input))).toEqual(expected);
  });
});

describe('parseFilter: positions are 0-based offsets', () => {
  test('every node, operator and value', () => {
    //                          0         1         2         3
    //                          0123456789012345678901234567890123456
    expect(parseFilter('and( a:1, or(entity.b[gte]:"x"|y))')).toEqual({
      type: 'combinator',
      kind: 'and',
      position: 0,
      children: [
        { type: 'condition', field: 'a', op: 'eq', position: 5, opPosition: 6, values: [{ text: '1', quoted: false, position: 7 }] },
        {
          type: 'combinator',
          kind: 'or',
          position: 10,
          children: [
            {
              type: 'condition',
              ref: 'entity',
              field: 'b',
              op: 'gte',
              position: 13,
              opPosition: 22,
              values: [
                { text: 'x', quoted: true, position: 27 },
                { text: 'y', quoted: false, position: 31 },
              ],
            },
          ],
        },
      ],
    });
  });
});

describe('parseFilter: input → FILTER_PARSE_ERROR at a position', () => {
  const NAME = 'a field name (letters, digits and single underscores, starting with a letter)';
  const EXPR = "a condition, 'and(' or 'or('";
  test.each<[string, number, string]>([
    // nothing, or no condition
    ['', 0, `expected ${EXPR} but found end of input`],
    ['   ', 3, `expected ${EXPR} but found end of input`],
    [':1', 0, `expected ${EXPR} but found ':'`],
    ['(a:1)', 0, `expected ${EXPR} but found '('`],
    ['"a":1', 0, `expected ${EXPR} but found '"'`],
    // the path
    ['a', 1, "expected '[', ':' or '.' but found end of input"],
    ['a 1', 1, "expected '[', ':' or '.' but found ' '"],
    ['AND(a:1)', 3, "expected '[', ':' or '.' but found '('"],
    ['entity.a', 8, "expected '[' or ':' but found end of input"],
    ['a.b.c:1', 3, "expected '[' or ':' but found '.'"],
    ['entity.:1', 7, `expected ${NAME} but found ':'`],
    ['entity..name:1', 7, `expected ${NAME} but found '.'`],
    ['a__:1', 0, `expected ${NAME} but found 'a__'`],
    ['__a:1', 0, `expected ${NAME} but found '__a'`],
    ['a___b:1', 0, `expected ${NAME} but found 'a___b'`],
    ['a__b__c:1', 0, `expected ${NAME} but found 'a__b__c'`],
    ['_a:1', 0, `expected ${NAME} but found '_a'`],
    ['a_:1', 0, `expected ${NAME} but found 'a_'`],
    ['1a:1', 0, `expected ${NAME} but found '1a'`],
    ['1.a:1', 0, "expected a reference name such as entity but found '1'"],
    ['entity.investor__:1', 7, `expected ${NAME} but found 'investor__'`],
    [`${'a'.repeat(70)}___:1`, 0, `expected ${NAME} but found '${'a'.repeat(60)}…'`],
    // the operator
    ['a[eq:1', 4, "expected ']' but found ':'"],
    ['a[]:1', 2, "expected an operator such as eq or in_any but found ']'"],
    ['a[e q]:1', 3, "expected ']' but found ' '"],
    ['a[eq]1', 5, "expected ':' but found '1'"],
    ['a[eq]]:1', 5, "expected ':' but found ']'"],
    ['a[eq]', 5, "expected ':' but found end of input"],
    ['a[eq', 4, "expected ']' but found end of input"],
    // values
    ['a:', 2, 'expected a value but found end of input'],
    ['a: ', 3, 'expected a value but found end of input'],
    ['a: |1', 3, "expected a value but found '|'"],
    ['a:(1)', 2, "expected a value but found '('"],
    ['a:1|', 4, 'expected a value but found end of input'],
    ['a:1||2', 4, "expected a value but found '|'"],
    ['a:|1', 2, "expected a value but found '|'"],
    ['a:"abc', 6, `expected '"' to close the value opened at position 2 but found end of input`],
    ['a:"x\\n"', 5, `expected '"' or '\\' after '\\' (the only escapes) but found 'n'`],
    ['a:"x\\', 5, `expected '"' or '\\' after '\\' (the only escapes) but found end of input`],
    ['a:"x"y', 5, "expected '|' or end of input but found 'y'"],
    ['a:x"y"', 3, `expected '|' or end of input but found '"'`],
    // trailing garbage and unbalanced parentheses
    ['a:1,b:2', 3, "expected '|' or end of input but found ','"],
    ['a:1)', 3, "expected '|' or end of input but found ')'"],
    ['a:"x" b', 6, "expected '|' or end of input but found 'b'"],
    ['a:New "York"', 6, `expected '|' or end of input but found '"'`],
    ['a:"x"\u0001', 5, `expected '|' or end of input but found "\\u0001"`],
    ['a:"x"\'', 5, `expected '|' or end of input but found "'"`],
    ['and(a:1', 7, "expected '|', ',' or ')' but found end of input"],
    ['and(a:1 ', 8, "expected '|', ',' or ')' but found end of input"],
    ['and(a:1,', 8, `expected ${EXPR} but found end of input`],
    ['and(a:1,)', 8, `expected ${EXPR} but found ')'`],
    ['and(,a:1)', 4, `expected ${EXPR} but found ','`],
    ['and()', 4, `expected ${EXPR} but found ')'`],
    ['and(a:1))', 8, "expected end of input but found ')'"],
    ['and(a:1) x', 9, "expected end of input but found 'x'"],
    ['and(a:1)x', 8, "expected end of input but found 'x'"],
    ['and(or(a:1)', 11, "expected ',' or ')' but found end of input"],
    ['and (', 5, `expected ${EXPR} but found end of input`],
  ])('%j', (input, position, problem) => {
    const error = thrownBy(() => parseFilter(input));
    expectFilterError(error, 'FILTER_PARSE_ERROR', `Invalid filter at position ${position}: ${problem}`);
    expect(error.message).toBe(`Invalid filter at position ${position}: ${problem}`);
  });
});

describe('limits: exactly at the limit parses, one over is refused', () => {
  const { maxLength, maxDepth, maxConditions, maxListValues } = FILTER_LIMITS;
  const nested = (depth: number) => `${'and('.repeat(depth)}a:1${')'.repeat(depth)}`;
  const conditions = (count: number) => `or(${Array.from({ length: count }, () => 'a:1').join(',')})`;
  const list = (count: number) => `a[in_any]:${Array.from({ length: count }, (_, index) => index).join('|')}`;

  test('the limits are the contract’s', () => {
    expect(FILTER_LIMITS).toEqual({ maxLength: 4096, maxDepth: 16, maxConditions: 200, maxListValues: 500 });
  });

  test(`length: ${maxLength} characters`, () => {
    const atLimit = `name:"${'x'.repeat(maxLength - 7)}"`;
    expect(atLimit).toHaveLength(maxLength);
    expect(parseFilter(atLimit)).toMatchObject({ field: 'name' });
    const error = thrownBy(() => parseFilter(`${atLimit} `));
    expectFilterError(error, 'FILTER_PARSE_ERROR', 'Invalid filter: it is 4097 characters long, at most 4096 are allowed');
  });

  test(`nesting: ${maxDepth} levels`, () => {
    expect(parseFilter(nested(maxDepth)).type).toBe('combinator');
    const error = thrownBy(() => parseFilter(nested(maxDepth + 1)));
    expectFilterError(error, 'FILTER_PARSE_ERROR', `Invalid filter at position ${4 * maxDepth}: nesting deeper than 16 levels`);
  });

  test(`conditions: ${maxConditions}`, () => {
    expect(parseFilter(conditions(maxConditions))).toMatchObject({ children: { length: maxConditions } });
    const error = thrownBy(() => parseFilter(conditions(maxConditions + 1)));
    // "or(" then 200 × "a:1,": the 201st condition starts at 3 + 200 × 4.
    expectFilterError(error, 'FILTER_PARSE_ERROR', `Invalid filter at position ${3 + 4 * maxConditions}: more than 200 conditions`);
  });

  test('conditions count across nesting levels', () => {
    const half = Array.from({ length: 100 }, () => 'a:1').join(',');
    expect(() => parseFilter(`and(or(${half}),or(${half}))`)).not.toThrow();
    expectFilterError(thrownBy(() => parseFilter(`and(or(${half}),or(${half}),b:1)`)), 'FILTER_PARSE_ERROR', 'more than 200 conditions');
  });

  test(`list values: ${maxListValues}`, () => {
    expect(parseFilter(list(maxListValues))).toMatchObject({ values: { length: maxListValues } });
    const text = list(maxListValues + 1);
    const error = thrownBy(() => parseFilter(text));
    expectFilterError(error, 'FILTER_PARSE_ERROR', `Invalid filter at position ${text.lastIndexOf('|') + 1}: more than 500 values in one list`);
  });

  test('a deep input is refused without recursing into it', () => {
    expectFilterError(thrownBy(() => parseFilter('and('.repeat(1000))), 'FILTER_PARSE_ERROR', 'nesting deeper than 16 levels');
  });
});

describe('parseOptionalFilter: an empty filter is no filter', () => {
  test.each([undefined, null, '', ' ', ' \t\r\n '])('%j → undefined', (input) => {
    expect(parseOptionalFilter(input)).toBeUndefined();
  });

  test('anything else is parsed', () => {
    expect(withoutPositions(parseOptionalFilter(' a:1 ')!)).toEqual(cond('a', 'eq', '1'));
    expectFilterError(thrownBy(() => parseOptionalFilter(' a ')), 'FILTER_PARSE_ERROR', 'position 2');
  });

  test('the length limit applies even to whitespace', () => {
    expect(parseOptionalFilter(' '.repeat(FILTER_LIMITS.maxLength))).toBeUndefined();
    expectFilterError(thrownBy(() => parseOptionalFilter(' '.repeat(FILTER_LIMITS.maxLength + 1))), 'FILTER_PARSE_ERROR', 'at most 4096');
  });
});
