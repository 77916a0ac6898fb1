/**
 * An in-memory evaluator for resolved filters, with exactly the semantics of src/filter/to-prisma.ts:
 * a differential test runs the same filter through Prisma and through this over the same rows, and
 * the two must select the same records.
 *
 * Record shape (one flat object per row; `FilterRecord`):
 * - Column fields under their Prisma column name, which is the last element of the field's `path` and,
 *   for every field of an API record, its API name (investors' `name` is read from `name`, not
 *   `entity.name`). Two exceptions: founders' `location_country` reads `location_country_id`, entities'
 *   `location` reads `country_location_id` and `city_location_id`.
 *   Values as Prisma returns them: number, bigint (money; a number or digit string also works),
 *   string, boolean, Date (an ISO string also works), Decimal for news `amount_usd` (anything whose
 *   `String()` is its decimal digits), or null.
 * - Id list fields under their API name, as arrays of ids: entities `tags`, `founders` (founding roles
 *   only), `investors` (every investor of any of its rounds); founders `tags`, `companies` (every role),
 *   `education` (university ids), `backgrounds`; investors `tags`, `portfolio` (entities of the rounds it
 *   joined); transactions `investors`; news `entities`.
 * - Entities also hold `round_investors`: the investor records (the investors shape above) of every
 *   investor of any of its rounds, which `investor__<field>` conditions range over.
 * A key the filter needs but the record lacks throws, so a wrongly built record cannot pass quietly.
 *
 * Strings compare by Unicode code point, which is PostgreSQL's order under the "C" collation; under a
 * linguistic collation `gt`/`lt` on text may differ, so differential tests of those need a C database.
 */
import type { FieldSpec, Operator, TypedValue, ValueKind } from '../../../src/filter/fields.ts';
import type { ResolvedCondition, ResolvedExpr, ResolvedFilter } from '../../../src/filter/resolve.ts';

export type FilterRecord = Readonly<Record<string, unknown>>;

export function evaluateFilter(filter: ResolvedFilter, record: FilterRecord): boolean {
  return evaluateExpr(filter.root, record);
}

function evaluateExpr(expr: ResolvedExpr, record: FilterRecord): boolean {
  if (expr.type === 'condition') return evaluateCondition(expr, record);
  const matches = (child: ResolvedExpr) => evaluateExpr(child, record);
  return expr.kind === 'and' ? expr.children.every(matches) : expr.children.some(matches);
}

function evaluateCondition(condition: ResolvedCondition, record: FilterRecord): boolean {
  const { relation, field, op, values } = condition;
  if (!relation) return evaluateField(field, op, values, record);
  const related = read(record, relation.recordKey);
  if (!Array.isArray(related)) throw new Error(`record.${relation.recordKey} must be an array of records`);
  return related.some((item: FilterRecord) => evaluateField(field, op, values, item));
}

function evaluateField(field: FieldSpec, op: Operator, values: readonly TypedValue[], record: FilterRecord): boolean {
  switch (field.target) {
    case 'column':
      return matchesColumn(field.kind, op, values, read(record, field.path[field.path.length - 1] as string));
    case 'any_column': {
      const hits = field.columns.map((column) => matchesColumn(field.kind, op, values, read(record, column)));
      return op === 'eq' || op === 'in_any' ? hits.some(Boolean) : hits.every(Boolean);
    }
    case 'id_list': {
      const ids = read(record, field.name);
      if (!Array.isArray(ids)) throw new Error(`record.${field.name} must be an array of ids`);
      const has = (id: TypedValue) => ids.includes(id);
      if (op === 'in_any') return values.some(has);
      if (op === 'nin_any') return !values.some(has);
      if (op === 'in_all') return values.every(has);
      if (op === 'nin_all') return !values.every(has);
      throw new Error(`operator ${op} on id list ${field.name}`);
    }
    case 'lookup': {
      // A lookup's record key holds the `<source>:<id>` texts the record has (external ids).
      const held = read(record, field.name);
      if (!Array.isArray(held)) throw new Error(`record.${field.name} must be an array of texts`);
      return values.some((value) => held.includes(value));
    }
  }
}

/** `neq` and `nin_any` are the exact complements of `eq` and `in_any`: NULL matches them. */
function matchesColumn(kind: ValueKind, op: Operator, values: readonly TypedValue[], actual: unknown): boolean {
  const expected = values[0] ?? null;
  const compared = () => (actual === null || expected === null ? Number.NaN : compare(kind, actual, expected));
  switch (op) {
    case 'eq':
      return expected === null ? actual === null : compared() === 0;
    case 'neq':
      return !matchesColumn(kind, 'eq', values, actual);
    case 'gt':
      return compared() > 0;
    case 'gte':
      return compared() >= 0;
    case 'lt':
      return compared() < 0;
    case 'lte':
      return compared() <= 0;
    case 'in_any':
      return actual !== null && values.some((value) => value !== null && compare(kind, actual, value) === 0);
    case 'nin_any':
      return !matchesColumn(kind, 'in_any', values, actual);
    // ILIKE: case-insensitive, and NULL never matches.
    case 'contains':
      return actual !== null && String(actual).toLowerCase().includes(String(expected).toLowerCase());
    case 'starts_with':
      return actual !== null && String(actual).toLowerCase().startsWith(String(expected).toLowerCase());
    default:
      throw new Error(`operator ${op} on a column`);
  }
}

/** Sign of actual − expected. */
function compare(kind: ValueKind, actual: unknown, expected: Exclude<TypedValue, null>): number {
  switch (kind) {
    case 'int':
    case 'float':
      return Math.sign(Number(actual) - Number(expected));
    case 'money': {
      const difference = BigInt(actual as bigint | number | string) - BigInt(expected as bigint);
      return difference === 0n ? 0 : difference > 0n ? 1 : -1;
    }
    case 'decimal':
      return compareDecimals(String(actual), String(expected));
    case 'bool':
      return actual === expected ? 0 : 1;
    case 'string':
      return compareCodePoints(String(actual), String(expected));
    case 'uuid':
      return compareCodePoints(String(actual).toLowerCase(), String(expected));
    case 'date':
    case 'datetime':
      return Math.sign(toTime(actual) - (expected as Date).getTime());
  }
}

function toTime(value: unknown): number {
  const time = value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
  if (Number.isNaN(time)) throw new Error(`not a date: ${String(value)}`);
  return time;
}

/** UTF-16 order differs from code point order only where surrogates meet U+E000..U+FFFF. */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return Math.sign(codePointRank(x) - codePointRank(y));
  }
  return Math.sign(a.length - b.length);
}

const codePointRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

/** Exact comparison of decimal texts (`-12.50`, `1e+21`), as PostgreSQL compares numeric. */
function compareDecimals(a: string, b: string): number {
  const x = scaledDecimal(a);
  const y = scaledDecimal(b);
  const scale = Math.max(x.scale, y.scale);
  const difference = x.digits * 10n ** BigInt(scale - x.scale) - y.digits * 10n ** BigInt(scale - y.scale);
  return difference === 0n ? 0 : difference > 0n ? 1 : -1;
}

function scaledDecimal(text: string): { digits: bigint; scale: number } {
  const match = /^([+-]?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!match) throw new Error(`not a decimal: ${text}`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(`${sign}${whole}${fraction}`);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

function read(record: FilterRecord, key: string): unknown {
  const value = record[key];
  if (value === undefined) throw new Error(`record has no '${key}'`);
  return value;
}
