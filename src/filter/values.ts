// Reading one written value as a typed value of a field's kind. Every accepted spelling is one that
// PostgreSQL and the in-memory evaluator read identically, so nothing here depends on Date.parse's
// implementation-defined leniency (or its habit of reading zone-less date-times as local time).
import type { TypedValue, ValueKind } from './fields/types.ts';

/**
 * A value that does not fit says what was expected; one of the right shape that the column cannot
 * hold (a year 0, an amount beyond 64 bits) also says why (`outOfRange`), so a message never claims a
 * well-formed `0000-01-01` is not a date.
 */
export type ValueResult = { ok: true; value: TypedValue } | { ok: false; expected: string; outOfRange?: string };

/** What PostgreSQL's int4 and int8 columns hold. */
export const INT4 = { min: -2147483648, max: 2147483647 };
export const INT8 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/**
 * The dates every date and date-time value of the API stays within: years 1 to 9999. PostgreSQL has
 * no year 0 (its `date` and `timestamptz` reach 4713 BC, written with `BC`, which ISO text cannot
 * say), ISO 8601 text without an agreed expansion has four-digit years, and JavaScript's Date goes to
 * +275760 only: the years 1 to 9999 are the ones all three hold alike.
 */
export const FIRST_DATE = '0001-01-01';
export const LAST_DATE = '9999-12-31';
const DATE_RANGE = `dates run from ${FIRST_DATE} to ${LAST_DATE}`;
const DATE_TIME_RANGE = `date-times run from ${FIRST_DATE}T00:00:00.000Z to ${LAST_DATE}T23:59:59.999Z (UTC, once the offset is applied)`;

/** Of the right shape, beyond what the column holds. */
class OutOfRange {
  constructor(readonly note: string) {}
}

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
// PostgreSQL text cannot hold NUL, and an unpaired surrogate has no UTF-8 form; either would fail in
// the database instead of here.
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?$/;

export const EXPECTED_BY_KIND: Readonly<Record<ValueKind, string>> = {
  int: `an integer from ${INT4.min} to ${INT4.max}`,
  money: 'a whole number of US dollars',
  float: 'a number such as 12 or -3.5',
  decimal: 'a number such as 12 or -3.5',
  bool: 'true or false',
  string: 'text without NUL characters or unpaired surrogates',
  uuid: 'a UUID',
  date: 'a date (YYYY-MM-DD)',
  datetime: 'a date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS[.sss]][Z|+HH:MM|-HH:MM])',
};

const ok = (value: TypedValue): ValueResult => ({ ok: true, value });

export function parseValue(kind: ValueKind, text: string): ValueResult {
  const value = readValue(kind, text);
  if (value instanceof OutOfRange) return { ok: false, expected: EXPECTED_BY_KIND[kind], outOfRange: value.note };
  return value === undefined ? { ok: false, expected: EXPECTED_BY_KIND[kind] } : ok(value);
}

type Read = TypedValue | OutOfRange | undefined;

function readValue(kind: ValueKind, text: string): Read {
  switch (kind) {
    case 'string':
      return UNSTORABLE_TEXT.test(text) ? undefined : text;
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'int':
      return readInt(text);
    case 'money':
      return readMoney(text);
    case 'float': {
      if (!DECIMAL.test(text)) return undefined;
      // `+ 0` turns -0 into 0 so that printing and comparing see one zero. Beyond ±1.8e308 a double is
      // infinite; below its smallest magnitude it rounds to 0, as PostgreSQL would round it.
      const value = Number(text) + 0;
      return Number.isFinite(value) ? value : new OutOfRange('numbers run to about ±1.8e308 (double precision)');
    }
    case 'decimal':
      // Kept as text: PostgreSQL compares numeric exactly and a double would not. No range: an
      // unconstrained numeric holds 131072 digits before the point, far more than a filter can hold,
      // and compares with the column whatever its precision (a value beyond it matches nothing, or all).
      return DECIMAL.test(text) ? text : undefined;
    case 'uuid':
      return UUID.test(text) ? text.toLowerCase() : undefined;
    case 'date':
      return readDate(text);
    case 'datetime': {
      const date = readDate(text);
      return date instanceof OutOfRange ? new OutOfRange(DATE_TIME_RANGE) : (date ?? readDateTime(text));
    }
  }
}

function readInt(text: string): number | undefined {
  if (!INTEGER.test(text)) return undefined;
  const value = Number(text) + 0;
  // The expected text names the range already.
  return value >= INT4.min && value <= INT4.max ? value : undefined;
}

function readMoney(text: string): bigint | OutOfRange | undefined {
  if (!INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT8.min && value <= INT8.max ? value : new OutOfRange(`amounts run from ${INT8.min} to ${INT8.max} (64 bits)`);
}

/**
 * Midnight UTC of a calendar date, or undefined for 2026-02-30 and the like. Year 0 is a real year to
 * the proleptic calendar (0000-02-29 exists) but not to PostgreSQL: out of range, not malformed.
 */
function utcDate(year: number, month: number, day: number): Date | OutOfRange | undefined {
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years below 100 as 19xx.
  date.setUTCFullYear(year, month - 1, day);
  const valid = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!valid) return undefined;
  return year < 1 ? new OutOfRange(DATE_RANGE) : date;
}

/** A calendar date within FIRST_DATE..LAST_DATE (the pattern allows four-digit years only). */
function readDate(text: string): Date | OutOfRange | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  return utcDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

function readDateTime(text: string): Date | OutOfRange | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone = 'Z'] = match;
  const date = utcDate(Number(year), Number(month), Number(day));
  const offset = readOffsetMinutes(zone);
  if (!date || offset === undefined || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    return undefined;
  }
  if (date instanceof OutOfRange) return new OutOfRange(DATE_TIME_RANGE);
  date.setUTCHours(Number(hour), Number(minute) - offset, Number(second), Number(fraction.padEnd(3, '0')));
  // The offset can carry the instant out of the years 1 to 9999 (0001-01-01T00:00+01:00 is year 0).
  const utcYear = date.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? date : new OutOfRange(DATE_TIME_RANGE);
}

/** Minutes east of UTC; a missing zone means UTC, as everywhere else in the API. */
function readOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
