/** Wraps operation results in the REST envelopes: `{data, page}` for lists, `{data}` for records. */
import { materialize } from '../compile/json-text.ts';
import { notFound, validationError } from '../errors.ts';
import { closeMatches } from '../filter/index.ts';
import type { RestRequest } from './request.ts';

export interface RestResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Row = Record<string, unknown>;

/**
 * The field names `fields` names, or undefined without it: comma-separated, and the parameter may be
 * repeated (`fields=name&fields=website`, as generated clients send a list), never ignored.
 */
export function requestedFields(request: Pick<RestRequest, 'query'>): string[] | undefined {
  const value = request.query.fields;
  if (value === undefined) return undefined;
  const names = [value].flat().flatMap((text) => text.split(',')).map((name) => name.trim()).filter(Boolean);
  return names.length ? names : undefined;
}

/**
 * The record fields `fields=a,b` asks for (id always kept), or undefined for all of them.
 * Checked before the operation runs, so a bad name costs no query.
 */
export function parseFieldSelection(request: RestRequest, known: readonly string[]): Set<string> | undefined {
  const names = requestedFields(request);
  if (!names) return undefined;
  const wanted = new Set(names);
  const unknown = [...wanted].filter((name) => !known.includes(name));
  if (unknown.length) {
    // Close matches, as filter and sort errors give them; the whole list only when nothing is close.
    const matches = closeMatches(unknown, known);
    const help = matches.length ? `close matches: ${matches.join(', ')}` : `known: ${known.join(', ')}`;
    throw validationError([{ path: 'query.fields', message: `unknown field(s): ${unknown.join(', ')}; ${help}` }]);
  }
  wanted.add('id');
  return wanted;
}

/** The rows with only the fields asked for; without `fields=`, the rows as they came (JSON text too). */
function project(rows: Row[], fields: Set<string> | undefined): Row[] {
  if (!fields) return rows;
  return materialize(rows).map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => fields.has(key))));
}

export function listEnvelope(data: Row, fields: Set<string> | undefined): RestResult {
  const list = data.list as { data: Row[]; page: Row };
  const page: Row = { limit: list.page.limit, offset: list.page.offset };
  if (list.page.total !== undefined) page.total = list.page.total;
  // Only when it is one: above a few ten thousand matches, `total` is the planner's estimate.
  if (list.page.total_is_estimate === true) page.total_is_estimate = true;
  page.next_cursor = list.page.next_cursor ?? null;
  return { status: 200, body: { data: project(list.data, fields), page } };
}

export function recordEnvelope(data: Row, fields: Set<string> | undefined, what: string): RestResult {
  const record = data.record as Row | null;
  if (!record) throw notFound(what);
  return { status: 200, body: { data: project([record], fields)[0] } };
}

/** An aggregate's answer as it is: `{data, page, query_info}`. */
export function aggregateEnvelope(data: Row): RestResult {
  return { status: 200, body: data.aggregate };
}

/** A page of the changes feed as it is: `{data, page: {limit, next_cursor}}`. */
export function feedEnvelope(data: Row): RestResult {
  return { status: 200, body: data.feed };
}

/** A ranked answer as its root field gives it: `{data, page: {limit}}`. */
export function rankingEnvelope(data: Row): RestResult {
  return { status: 200, body: data.ranking };
}

/** A short, unpaged list: `{data: [...]}`. */
export function itemsEnvelope(data: Row): RestResult {
  return { status: 200, body: { data: data.items as Row[] } };
}
