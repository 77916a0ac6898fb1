/**
 * `sort=` and keyset cursors. The order always ends with `id`, so it is total: pages never overlap or
 * skip. A cursor carries the sort and the last row's sort values, so the next page is a range scan from
 * there ("after this row"), at constant cost however deep (PostgreSQL row comparison, via Prisma where).
 */
import { createHash } from 'node:crypto';
import { closeMatches, sortableFields, type Resource, type SortableField } from '../filter/index.ts';
import { validationError } from '../errors.ts';
import { CODECS, NOT_OURS, type CursorValue } from '../values/codecs.ts';

export type Direction = 'asc' | 'desc';

export interface SortKey {
  field: SortableField<Resource>;
  direction: Direction;
}

const SORT_PATTERN = /^-?\w+(,-?\w+)*$/;

/** Parses `-total_funding_usd,name`; unknown or unsortable fields are a 400 listing the sortable ones. */
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

/**
 * What parseSort takes, as a JSON Schema pattern over the resource's sortable fields (the OpenAPI
 * document's `sort`): blank (the default order), or names, each optionally prefixed with `-`.
 */
export function sortPattern(resource: Resource): string {
  const name = `-?(?:${[...sortableFields(resource).keys()].join('|')})`;
  return `^\\s*(?:${name}(?:,${name})*)?\\s*$`;
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
 * NULLs sort last in both directions: `sort=-lat` starts with the northernmost, not with the unknown
 * places. Stated explicitly so the keyset condition and the indexes (migration *_nulls_last_sort_indexes) agree.
 */
export function toOrderBy(keys: SortKey[]): object[] {
  return keys.map((key) => key.field.orderBy(key.direction, 'last'));
}

// ───────────── cursors ─────────────


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

/** A sort signature as this API writes one, safe to repeat in a message. */
const SORT_SIGNATURE = /^-?[a-z_]{1,64}(,-?[a-z_]{1,64}){0,15}$/;

export function encodeCursor(keys: SortKey[], filter: string | null | undefined, row: unknown): string {
  const payload: CursorPayload = {
    s: sortSignature(keys),
    f: filterDigest(filter),
    v: keys.map((key) => {
      const value = readPath(row, key.field.path);
      return value == null ? null : CODECS[key.field.kind].toCursor(value);
    }),
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
    const raw = payload.v[index];
    const value = raw === null ? null : CODECS[key.field.kind].fromCursor(raw);
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
