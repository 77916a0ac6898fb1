// Reading one written value as a typed value of a field's kind. Every accepted spelling is one that
// PostgreSQL and the in-memory evaluator read identically, so nothing here depends on Date.parse's
// implementation-defined leniency (or its habit of reading zone-less date-times as local time).
import type { TypedValue, ValueKind } from './fields/types.ts';

export type ValueResult = { ok: true; value: TypedValue } | { ok: false; expected: string };

const INT4 = { min: -2147483648, max: 2147483647 };
const INT8 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

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
  return value === undefined ? { ok: false, expected: EXPECTED_BY_KIND[kind] } : ok(value);
}

function readValue(kind: ValueKind, text: string): TypedValue | undefined {
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
      // `+ 0` turns -0 into 0 so that printing and comparing see one zero.
      const value = DECIMAL.test(text) ? Number(text) + 0 : Number.NaN;
      return Number.isFinite(value) ? value : undefined;
    }
    case 'decimal':
      // Kept as text: PostgreSQL compares numeric exactly and a double would not.
      return DECIMAL.test(text) ? text : undefined;
    case 'uuid':
      return UUID.test(text) ? text.toLowerCase() : undefined;
    case 'date':
      return readDate(text);
    case 'datetime':
      return readDate(text) ?? readDateTime(text);
  }
}

function readInt(text: string): number | undefined {
  if (!INTEGER.test(text)) return undefined;
  const value = Number(text) + 0;
  return value >= INT4.min && value <= INT4.max ? value : undefined;
}

function readMoney(text: string): bigint | undefined {
  if (!INTEGER.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT8.min && value <= INT8.max ? value : undefined;
}

/** Midnight UTC of a calendar date, or undefined for 2026-02-30 and the like. */
function utcDate(year: number, month: number, day: number): Date | undefined {
  if (year < 1) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years below 100 as 19xx.
  date.setUTCFullYear(year, month - 1, day);
  const valid = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return valid ? date : undefined;
}

function readDate(text: string): Date | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  return utcDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

function readDateTime(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone = 'Z'] = match;
  const date = utcDate(Number(year), Number(month), Number(day));
  const offset = readOffsetMinutes(zone);
  if (!date || offset === undefined || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    return undefined;
  }
  date.setUTCHours(Number(hour), Number(minute) - offset, Number(second), Number(fraction.padEnd(3, '0')));
  // The offset can carry the instant out of the years 1 to 9999, which PostgreSQL (no year 0) and
  // ISO 8601 text (no five-digit years) cannot hold.
  const utcYear = date.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? date : undefined;
}

/** Minutes east of UTC; a missing zone means UTC, as everywhere else in the API. */
function readOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
