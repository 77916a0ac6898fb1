/**
 * Each kind of value the read API serves, in one place: how a column of that kind is written as
 * response JSON (by the GraphQL scalar and by compiled SQL alike), how it travels in a cursor, and how
 * a sort value is read back from PostgreSQL so that cursors from both paths are equal to the byte.
 * Filter text is read by the filter grammar (src/filter/values.ts, `parseValue`), with the same kinds.
 * CSV cells are the response JSON's values as text (src/rest/csv-export.ts), so they need nothing here.
 */
import type { ValueKind } from '../filter/fields/types.ts';
import { FIRST_DATE, INT4, INT8, LAST_DATE } from '../filter/values.ts';

/** A value a cursor carries (JSON). */
export type CursorValue = string | number | boolean | null;

/** What `fromCursor` answers for a value no cursor of this API carries. */
export const NOT_OURS = Symbol('not a value toCursor makes');

export interface ValueCodec {
  /** The GraphQL scalar a column of this kind is served as. */
  readonly scalar: 'Int' | 'Float' | 'String' | 'Boolean' | 'Money' | 'Date' | 'DateTime';
  /** A row's value (as Prisma or the pg driver hands it over) as the response JSON has it. */
  serialize(value: unknown): unknown;
  /** SQL writing the column `sql` as that JSON value; each is `serialize`'s twin. */
  jsonSql(sql: string): string;
  /**
   * SQL reading a sort value so that `toCursor` makes of it the cursor Prisma's row makes. Times come
   * back as text: a driver's own reading of a timestamp is not trusted (PGlite's reads year 1 as 2001).
   */
  sortValueSql(sql: string): string;
  toCursor(value: unknown): CursorValue;
  /** A cursor's value back to what the keyset condition compares, or NOT_OURS: a cursor travels through clients. */
  fromCursor(value: unknown): unknown;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const same = (sql: string): string => sql;
const asIs = (value: unknown): unknown => value;

const text: ValueCodec = {
  scalar: 'String',
  serialize: asIs,
  jsonSql: same,
  sortValueSql: same,
  toCursor: (value) => value as CursorValue,
  fromCursor: (value) => (typeof value === 'string' && !value.includes('\u0000') ? value : NOT_OURS),
};

/** An instant as ISO 8601 text in UTC with milliseconds, within the years every date of the API stays in. */
function instantFromCursor(value: unknown): Date | typeof NOT_OURS {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return NOT_OURS;
  // ISO text of one shape orders as it reads.
  if (value < FIRST_DATE || value.slice(0, 10) > LAST_DATE) return NOT_OURS;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? NOT_OURS : date;
}

/** An instant as ISO 8601 text in UTC with milliseconds, as `Date.toISOString` writes it. */
const ISO_INSTANT_SQL = (sql: string): string => `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const instantToCursor = (value: unknown): CursorValue => (value instanceof Date ? value.toISOString() : (value as CursorValue));

export const CODECS: Readonly<Record<ValueKind, ValueCodec>> = Object.freeze({
  int: {
    scalar: 'Int',
    serialize: asIs,
    jsonSql: same,
    sortValueSql: same,
    toCursor: (value) => value as CursorValue,
    fromCursor: (value) => (Number.isInteger(value) && (value as number) >= INT4.min && (value as number) <= INT4.max ? value : NOT_OURS),
  },
  float: {
    scalar: 'Float',
    serialize: asIs,
    jsonSql: same,
    sortValueSql: same,
    toCursor: (value) => value as CursorValue,
    fromCursor: (value) => (typeof value === 'number' && Number.isFinite(value) ? value : NOT_OURS),
  },
  /** Whole dollars in int8: a JSON number out, text in a cursor (a bigint does not fit a double). */
  money: {
    scalar: 'Money',
    serialize: (value) => Number(value),
    jsonSql: same,
    sortValueSql: (sql) => `${sql}::text`,
    toCursor: (value) => (value == null ? null : String(value)),
    fromCursor: (value) => {
      if (typeof value !== 'string' || !/^-?\d{1,19}$/.test(value)) return NOT_OURS;
      const money = BigInt(value);
      return money >= INT8.min && money <= INT8.max ? money : NOT_OURS;
    },
  },
  /** An exact numeric, served as text the way Prisma's Decimal prints it (`12.5`, not `12.50`). */
  decimal: {
    scalar: 'String',
    serialize: (value) => (value == null ? value : String(value)),
    jsonSql: (sql) => `trim_scale(${sql})::text`,
    sortValueSql: (sql) => `trim_scale(${sql})::text`,
    toCursor: (value) => (value == null ? null : String(value)),
    fromCursor: (value) => (typeof value === 'number' || (typeof value === 'string' && /^-?\d{1,40}(\.\d{1,40})?$/.test(value)) ? value : NOT_OURS),
  },
  bool: {
    scalar: 'Boolean',
    serialize: asIs,
    jsonSql: same,
    sortValueSql: same,
    toCursor: (value) => value as CursorValue,
    fromCursor: (value) => (typeof value === 'boolean' ? value : NOT_OURS),
  },
  string: text,
  uuid: text,
  /** A calendar date: `YYYY-MM-DD` out; in a cursor, the UTC midnight Prisma reads it as. */
  date: {
    scalar: 'Date',
    serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : value),
    jsonSql: (sql) => `to_char(${sql}, 'YYYY-MM-DD')`,
    sortValueSql: (sql) => `to_char(${sql}, 'YYYY-MM-DD"T00:00:00.000Z"')`,
    toCursor: instantToCursor,
    fromCursor: instantFromCursor,
  },
  /** An instant: ISO 8601 in UTC with milliseconds. */
  datetime: {
    scalar: 'DateTime',
    serialize: (value) => (value instanceof Date ? value.toISOString() : value),
    jsonSql: ISO_INSTANT_SQL,
    sortValueSql: ISO_INSTANT_SQL,
    toCursor: instantToCursor,
    fromCursor: instantFromCursor,
  },
});

/**
 * The codec a GraphQL scalar's columns are written with: the kind that scalar serves (a decimal served
 * as text is declared as one: `followColumn(..., { asText: true })`). `ID` is not here: it serializes
 * an integer column as a string, which no codec writes, so such a field is served by its resolver.
 */
export const SCALAR_KIND: Readonly<Record<string, ValueKind>> = Object.freeze({
  Int: 'int',
  Float: 'float',
  String: 'string',
  Boolean: 'bool',
  Money: 'money',
  Date: 'date',
  DateTime: 'datetime',
});

/** A JavaScript value as a bound SQL parameter the driver sends unambiguously (ISO text for times, text for int8 and numeric). */
export function toParameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(toParameter);
  if (value !== null && typeof value === 'object') return String(value); // Prisma Decimal
  return value;
}
