/**
 * `sort=` and keyset cursors. The order always ends with `id`, so it is total: pages never overlap or
 * skip. A cursor carries the sort and the last row's sort values, so the next page is a range scan from
 * there ("after this row"), at constant cost however deep (PostgreSQL row comparison, via Prisma where).
 */
import { createHash } from 'node:crypto';
import { closeMatches, sortableFields, type Resource, type SortableField, type ValueKind } from '../filter/index.ts';
import { FIRST_DATE, LAST_DATE } from '../filter/values.ts';
import { validationError } from '../errors.ts';

export type Direction = 'asc' | 'desc';

export interface SortKey {
  field: SortableField<Resource>;
  direction: Direction;
}

const SORT_PATTERN = /^-?\w+(,-?\w+)*$/;

/** Parses `-launch_year,name`; unknown or unsortable fields are a 400 listing the sortable ones. */
export function parseSort(resource: Resource, text: string | null | undefined, defaultSort: string): SortKey[] {
  const source = text == null || text.trim() === '' ? defaultSort : text.trim();
  if (!SORT_PATTERN.test(source)) {
    throw validationError([{ path: 'sort', message: 'must be comma-separated field names, each optionally prefixed with -' }]);
  }
  const fields = sortableFields(resource);
  const keys: SortKey[] = [];
  for (const term of source.split(',')) {
    const name = term.replace(/^-/, '');
    const field = fields.get(name);
    if (!field) throw validationError([{ path: 'sort', message: unknownSortField(name, [...fields.keys()]) }]);
    if (keys.some((key) => key.field.name === name)) continue;
    keys.push({ field, direction: term.startsWith('-') ? 'desc' : 'asc' });
  }
  if (!keys.some((key) => key.field.name === 'id')) keys.push({ field: fields.get('id')!, direction: 'asc' });
  return keys;
}

/** Like the filter's UNKNOWN_FILTER: the close matches when there are some, else every sortable field. */
function unknownSortField(name: string, sortable: string[]): string {
  const matches = closeMatches([name], sortable);
  const help = matches.length ? `close matches: ${matches.join(', ')}` : `sortable fields: ${sortable.join(', ')}`;
  return `cannot sort by '${name}'; ${help}`;
}

export function sortSignature(keys: SortKey[]): string {
  return keys.map((key) => `${key.direction === 'desc' ? '-' : ''}${key.field.name}`).join(',');
}

/**
 * NULLs sort last in both directions: `sort=-launch_year` starts with the newest, not with the unknown
 * years. Stated explicitly so the keyset condition and the indexes (migration *_nulls_last_sort_indexes) agree.
 */
export function toOrderBy(keys: SortKey[]): object[] {
  return keys.map((key) => key.field.orderBy(key.direction, 'last'));
}

// ───────────── cursors ─────────────

type CursorValue = string | number | boolean | null;

interface CursorPayload {
  /** The sort the cursor was made for. */
  s: string;
  /** A digest of the filter, so a cursor is not silently reused under another filter. */
  f: string;
  /** The last row's value for each sort key. */
  v: CursorValue[];
}

export function filterDigest(filter: string | null | undefined): string {
  return createHash('sha256').update(filter?.trim() ?? '').digest('base64url').slice(0, 12);
}

function readPath(row: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((value, key) => (value == null ? value : (value as Record<string, unknown>)[key]), row);
}

function encodeValue(value: unknown): CursorValue {
  if (value == null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value); // Prisma Decimal
}

const NOT_OURS = Symbol('not a value encodeValue makes');
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

/**
 * A cursor value back to what the keyset condition compares, checked against the sort key's kind:
 * a cursor travels through clients, so nothing in it is used before it has the exact shape
 * encodeValue gives (an object or a string where a number belongs never reaches the query).
 */
function decodeValue(value: unknown, kind: ValueKind): unknown {
  if (value === null) return null;
  switch (kind) {
    case 'int':
      return Number.isInteger(value) && (value as number) >= -2_147_483_648 && (value as number) <= 2_147_483_647 ? value : NOT_OURS;
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? value : NOT_OURS;
    case 'decimal':
      return typeof value === 'number' || (typeof value === 'string' && /^-?\d{1,40}(\.\d{1,40})?$/.test(value)) ? value : NOT_OURS;
    case 'money': {
      if (typeof value !== 'string' || !/^-?\d{1,19}$/.test(value)) return NOT_OURS;
      const money = BigInt(value);
      return money >= INT8_MIN && money <= INT8_MAX ? money : NOT_OURS;
    }
    case 'bool':
      return typeof value === 'boolean' ? value : NOT_OURS;
    case 'date':
    case 'datetime': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value)) return NOT_OURS;
      // Within the years every date of the API stays in (src/filter/values.ts); ISO text of one shape orders as it reads.
      if (value < FIRST_DATE || value.slice(0, 10) > LAST_DATE) return NOT_OURS;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? NOT_OURS : date;
    }
    case 'string':
    case 'uuid':
      return typeof value === 'string' && !value.includes('\u0000') ? value : NOT_OURS;
  }
}

/** A sort signature as this API writes one, safe to repeat in a message. */
const SORT_SIGNATURE = /^-?[a-z_]{1,64}(,-?[a-z_]{1,64}){0,15}$/;

export function encodeCursor(keys: SortKey[], filter: string | null | undefined, row: unknown): string {
  const payload: CursorPayload = {
    s: sortSignature(keys),
    f: filterDigest(filter),
    v: keys.map((key) => encodeValue(readPath(row, key.field.path))),
  };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/** Reads a cursor made by encodeCursor for the same sort and filter; anything else is a 400. */
export function decodeCursor(cursor: string, keys: SortKey[], filter: string | null | undefined): unknown[] {
  const invalid = (message: string) => validationError([{ path: 'cursor', message }]);
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw invalid('is not a cursor this API issued');
  }
  if (!payload || typeof payload !== 'object' || typeof payload.s !== 'string' || typeof payload.f !== 'string' || !Array.isArray(payload.v)) {
    throw invalid('is not a cursor this API issued');
  }
  const sort = sortSignature(keys);
  if (payload.s !== sort) {
    const issuedFor = SORT_SIGNATURE.test(payload.s) ? `sort=${payload.s}` : 'another sort';
    throw invalid(`was issued for ${issuedFor}, and this request sorts by ${sort}; pass the sort of the page it came from`);
  }
  if (payload.f !== filterDigest(filter)) {
    throw invalid('was issued for another filter (or none); pass the filter of the page it came from, unchanged');
  }
  if (payload.v.length !== keys.length) throw invalid('is not a cursor this API issued');
  return keys.map((key, index) => {
    const value = decodeValue(payload.v[index], key.field.kind);
    if (value === NOT_OURS || (value === null && !key.field.nullable)) throw invalid('is not a cursor this API issued');
    return value;
  });
}

// ───────────── keyset condition ─────────────

function atPath(path: readonly string[], condition: unknown): object {
  return path.slice(0, -1).reduceRight<object>((inner, key) => ({ [key]: inner }), {
    [path[path.length - 1]!]: condition,
  });
}

const NOTHING = { id: { in: [] as number[] } };

/**
 * `key > value` (`gt`) or `key < value` (`lt`). Prisma's boolean filter has no gt/lt, so on a boolean
 * key the one value beyond (false < true, as PostgreSQL orders them) is written with equals.
 */
function beyond(key: SortKey, op: 'gt' | 'lt', value: unknown): object {
  if (key.field.kind !== 'bool') return atPath(key.field.path, { [op]: value });
  const edge = op === 'gt' ? value === true : value === false;
  return edge ? NOTHING : atPath(key.field.path, { equals: op === 'gt' });
}

/** Rows strictly after `value` on one key, in that key's direction; NULLs come last in both. */
function after(key: SortKey, value: unknown): object {
  const { path, nullable } = key.field;
  // After a NULL only NULLs follow, and those are ordered by the later keys.
  if (value === null) return NOTHING;
  const further = beyond(key, key.direction === 'asc' ? 'gt' : 'lt', value);
  return nullable ? { OR: [further, atPath(path, null)] } : further;
}

/**
 * `(k1, k2, ..., id) > (v1, v2, ..., vid)` in the list's order, as a Prisma where. Prisma cannot write a
 * row comparison, so it is expanded into OR branches, plus a redundant range bound on the first key
 * that lets PostgreSQL start an index range scan at the cursor instead of filtering from the top.
 */
export function keysetWhere(keys: SortKey[], values: unknown[]): object {
  const branches = keys.map((key, index) => {
    const equalities = keys.slice(0, index).map((earlier, j) => atPath(earlier.field.path, values[j]));
    return { AND: [...equalities, after(key, values[index])] };
  });
  const [first] = keys;
  const start = values[0];
  // No range bound on a boolean first key: Prisma's boolean filter has no gte/lte (and two values gain nothing).
  if (!first || start === null || first.field.nullable || first.field.kind === 'bool') return { OR: branches };
  const bound = atPath(first.field.path, first.direction === 'asc' ? { gte: start } : { lte: start });
  return { AND: [bound, { OR: branches }] };
}
