// Properties over generated input: the filter pipeline is total (an answer or a filter error, never
// another throw), fast on anything up to the length limit, and printing is the parser's inverse.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { isAppError } from '../../../src/errors.ts';
import {
  compileFilter,
  FILTER_ERROR_CODES,
  fieldRegistry,
  parseFilter,
  printFilter,
  RESOURCES,
  type FilterCondition,
  type FilterExpr,
  type FilterScalar,
  type Resource,
  type ValueKind,
} from '../../../src/filter/index.ts';
import { withoutPositions } from './helpers.ts';

const TIME_LIMIT_MS = 50;

/** Compiles and reports how: 'ok', or the filter error code. Anything else fails the test. */
function outcome(resource: Resource, text: string): string {
  try {
    compileFilter(resource, text);
    return 'ok';
  } catch (error) {
    if (isAppError(error) && (FILTER_ERROR_CODES as readonly string[]).includes(error.code)) return error.code;
    throw error;
  }
}

function timed<T>(run: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = run();
  return { result, ms: performance.now() - start };
}

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const codeUnit = fc.oneof(
  { weight: 20, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: loneSurrogate },
);
// size 'max': lengths spread over the whole range up to 5000, not fast-check's default of small inputs.
const anyText = fc.string({ unit: codeUnit, maxLength: 5000, size: 'max' });
const TOKENS = [
  'and(', 'or(', 'and', ' (', ')', ',', '|', ':', '[', ']', '.', '__', '"', '\\', ' ', '\n', 'name', 'tags', 'launch_year',
  'deleted_at', 'location', 'entity', 'news', 'investor', 'total_invested_usd', 'eq', 'neq', 'gte', 'in', 'in_all',
  'nin_any', 'like', 'null', 'true', '2026-01-01', '2026-01-01T00:00:00Z', '1', '-3.5', 'x', '"a b"', '\u0000', '🚀',
];
const tokenSoup = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 1500, size: 'max' })
  .map((tokens) => tokens.join('').slice(0, 5000));
const shortTokenSoup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((tokens) => tokens.join(''));
const resource = fc.constantFrom(...RESOURCES);

describe('any input: an answer or a filter error, quickly', () => {
  // Warm the code paths up so that the first timed run does not pay for compilation.
  for (let run = 0; run < 50; run += 1) outcome('entities', `and(name:x, tags[in_any]:1|2, nope:${run})`);

  test.each([
    ['arbitrary Unicode (lone surrogates included)', anyText],
    ['grammar tokens in any order', tokenSoup],
    ['short runs of grammar tokens', shortTokenSoup],
  ])('%s', (_name, text) => {
    fc.assert(
      fc.property(resource, text, (resourceName, input) => {
        const { ms } = timed(() => outcome(resourceName, input));
        expect(ms).toBeLessThan(TIME_LIMIT_MS);
      }),
      { numRuns: 300 },
    );
  });
});

describe('inputs at and over the limits are answered quickly', () => {
  const x4094 = 'x'.repeat(4094);
  test.each<[string, string, string]>([
    ['4096 opening parentheses', '('.repeat(4096), 'FILTER_PARSE_ERROR'],
    ['1024 nested and(', 'and('.repeat(1024), 'FILTER_PARSE_ERROR'],
    ['16 nested and( around 200 conditions', `${'and('.repeat(15)}or(${Array(200).fill('a:1').join(',')})${')'.repeat(15)}`, 'UNKNOWN_FILTER'],
    ['1000 conditions', `or(${Array(1000).fill('a:1').join(',')})`.slice(0, 4096), 'FILTER_PARSE_ERROR'],
    ['2000 list values', `tags[in_any]:${Array(2042).fill('1').join('|')}`, 'FILTER_PARSE_ERROR'],
    ['500 list values', `tags[in_all]:${Array.from({ length: 500 }, (_, index) => index).join('|')}`, 'ok'],
    ['an escape-heavy quoted value', `name:"${'\\\\'.repeat(2043)}"`, 'ok'],
    ['an unterminated quoted value', `name:"${'\\"'.repeat(2044)}`, 'FILTER_PARSE_ERROR'],
    ['a 4094-character field name', `${x4094}:1`, 'UNKNOWN_FILTER'],
    ['a 4084-character relation', `investor__${x4094.slice(10)}:1`, 'UNKNOWN_FILTER'],
    ['a 4094-character operator', `name[${x4094.slice(6)}]:1`, 'UNSUPPORTED_OPERATOR'],
    ['a 4094-character bare value', `a:${x4094}`, 'UNKNOWN_FILTER'],
    ['a 4090-character number', `lat:${'9'.repeat(4092)}`, 'FILTER_VALIDATION_ERROR'],
    ['a 4090-digit money value', `total_funding_usd:${'9'.repeat(4078)}`, 'FILTER_VALIDATION_ERROR'],
    ['4096 spaces', ' '.repeat(4096), 'ok'],
    ['4097 spaces', ' '.repeat(4097), 'FILTER_PARSE_ERROR'],
    ['ten million characters', 'a'.repeat(10_000_000), 'FILTER_PARSE_ERROR'],
  ])('%s', (_name, input, expected) => {
    const { result, ms } = timed(() => outcome('entities', input));
    expect(result).toBe(expected);
    expect(ms).toBeLessThan(TIME_LIMIT_MS);
  });
});

// Trees the parser could have produced (no positions; they are compared without them).
const NAME = /^[A-Za-z][A-Za-z0-9]{0,6}(?:_[A-Za-z0-9]{1,4}){0,2}$/;
const name = fc.stringMatching(NAME);
const bareText = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 12 })
  // Inner whitespace belongs to a bare value; surrounding whitespace is trimmed, so none is generated there.
  .map((text) => text.replace(/[,()|"]|^[ \t\n\r]|[ \t\n\r]$/g, '_'));
const scalar: fc.Arbitrary<FilterScalar> = fc.oneof(
  bareText.map((text) => ({ text, quoted: false, position: 0 })),
  fc.string({ unit: 'binary', maxLength: 12 }).map((text) => ({ text, quoted: true, position: 0 })),
);
const condition: fc.Arbitrary<FilterCondition> = fc
  .record(
    {
      ref: name,
      relation: name,
      field: name,
      op: fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/),
      values: fc.array(scalar, { minLength: 1, maxLength: 4 }),
    },
    { requiredKeys: ['field', 'op', 'values'] },
  )
  .map((parts) => ({ type: 'condition', ...parts, position: 0, opPosition: 0 }));
const { expr } = fc.letrec<{ expr: FilterExpr }>((tie) => ({
  expr: fc.oneof(
    { maxDepth: 6, depthSize: 'small' },
    condition,
    fc.record({
      type: fc.constant('combinator' as const),
      kind: fc.constantFrom('and' as const, 'or' as const),
      children: fc.array(tie('expr'), { minLength: 1, maxLength: 4 }),
      position: fc.constant(0),
    }),
  ),
}));

/** Like printFilter, with whitespace wherever the grammar allows it and `field:v` for `[eq]`. */
function printLoosely(tree: FilterExpr, spaces: readonly string[], shorthand: boolean): string {
  let turn = 0;
  const space = () => spaces[turn++ % spaces.length]!;
  const print = (node: FilterExpr): string => {
    if (node.type === 'condition') {
      const canonical = printFilter(node);
      return shorthand && node.op === 'eq' ? canonical.replace('[eq]:', ':') : canonical;
    }
    const children = node.children.map((child) => `${space()}${print(child)}${space()}`);
    return `${node.kind}${space()}(${children.join(',')})`;
  };
  return `${space()}${print(tree)}${space()}`;
}

describe('printFilter', () => {
  test('parses back to the same tree', () => {
    fc.assert(
      fc.property(expr, (tree) => {
        const text = printFilter(tree);
        fc.pre(text.length <= 4096);
        expect(withoutPositions(parseFilter(text))).toEqual(withoutPositions(tree));
      }),
      { numRuns: 500 },
    );
  });

  test('ignores whitespace between expressions and the eq shorthand', () => {
    const layout = fc.array(fc.constantFrom('', ' ', '\n', '\t ', '\r\n'), { minLength: 16, maxLength: 16 });
    fc.assert(
      fc.property(expr, layout, fc.boolean(), (tree, spaces, shorthand) => {
        const text = printLoosely(tree, spaces, shorthand);
        fc.pre(text.length <= 4096);
        const parsed = parseFilter(text);
        expect(withoutPositions(parsed)).toEqual(withoutPositions(tree));
        expect(printFilter(parsed)).toBe(printFilter(tree));
      }),
      { numRuns: 300 },
    );
  });

  test('examples', () => {
    expect(printFilter(parseFilter(' and( a:1 , or(entity.b[in]:"x y"|z, c:null), d:"null") '))).toBe(
      'and(a[eq]:1,or(entity.b[in]:"x y"|z,c[eq]:null),d[eq]:"null")',
    );
    expect(printFilter(parseFilter('name:"say \\"hi\\" \\\\"'))).toBe('name[eq]:"say \\"hi\\" \\\\"');
    const handBuilt: FilterExpr = {
      type: 'condition',
      field: 'name',
      op: 'eq',
      values: [
        { text: 'New York', quoted: false, position: 0 },
        { text: ' padded', quoted: false, position: 0 },
      ],
      position: 0,
      opPosition: 0,
    };
    expect(printFilter(handBuilt)).toBe('name[eq]:New York|" padded"');
  });
});

// Filters that are valid for their resource: every one must compile (resolve and to-prisma are total).
const isoDate = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((date) => date.toISOString());
const VALUE_OF_KIND: Record<ValueKind, fc.Arbitrary<string>> = {
  int: fc.integer({ min: -2147483648, max: 2147483647 }).map(String),
  money: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  float: fc.tuple(fc.integer(), fc.nat()).map(([whole, fraction]) => `${whole}.${fraction}`),
  decimal: fc.tuple(fc.bigInt(), fc.nat(99)).map(([whole, cents]) => `${whole}.${cents}`),
  bool: fc.constantFrom('true', 'false'),
  string: fc.string({ unit: 'grapheme', maxLength: 20 }).map((text) => `"${text.replace(/["\\]/g, (char) => `\\${char}`)}"`),
  uuid: fc.uuid(),
  date: isoDate.map((iso) => iso.slice(0, 10)),
  datetime: fc.oneof(
    isoDate,
    isoDate.map((iso) => iso.slice(0, 10)),
    // An offset must not carry the instant out of the years 1 to 9999 (that is a validation error).
    isoDate.filter((iso) => iso >= '0001-01-01T05:30').map((iso) => `${iso.slice(0, 19)}+05:30`),
  ),
};
/** Fields that read values their own way take values of that shape. */
const VALUE_OF_FIELD: Readonly<Record<string, fc.Arbitrary<string>>> = {
  website: fc.constantFrom('stripe.com', '"https://www.Stripe.com/pricing?a=b"', '""', 'jane@x.io', 'münchen.de', 'stripe'),
  external_id: fc.tuple(fc.constantFrom('crunchbase', 'wikidata', 'lei'), fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/)).map(([source, id]) => `${source}:${id}`),
};
const LIST_OPERATORS = new Set(['in_any', 'nin_any', 'in_all', 'nin_all', 'in', 'nin']);
const validCondition = (resourceName: Resource) =>
  fc.constantFrom(...fieldRegistry(resourceName).fields.values()).chain((field) => {
    const legacy = [...(field.operators.includes('in_any') ? ['in'] : []), ...(field.operators.includes('nin_any') ? ['nin'] : [])];
    return fc.constantFrom(...field.operators, ...legacy).chain((op) => {
      const count = LIST_OPERATORS.has(op) ? 5 : 1;
      const nullable = field.nullable && (op === 'eq' || op === 'neq');
      const ofKind = VALUE_OF_FIELD[field.name] ?? VALUE_OF_KIND[field.kind];
      const value = nullable ? fc.oneof(ofKind, fc.constant('null')) : ofKind;
      return fc.array(value, { minLength: 1, maxLength: count }).map((values) => `${field.name}[${op}]:${values.join('|')}`);
    });
  });

describe('valid filters always compile', () => {
  test.each(RESOURCES)('%s', (resourceName) => {
    const filter = fc.array(validCondition(resourceName), { minLength: 1, maxLength: 6 }).chain((conditions) =>
      fc.constantFrom('and', 'or').map((kind) => (conditions.length === 1 ? conditions[0]! : `${kind}(${conditions.join(',')})`)),
    );
    fc.assert(
      fc.property(filter, (text) => {
        const { where } = compileFilter(resourceName, text);
        expect(where).toBeTypeOf('object');
      }),
      { numRuns: 300 },
    );
  });
});
