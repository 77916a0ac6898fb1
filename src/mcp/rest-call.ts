/**
 * How a tool reads: a GET through the REST handler, served as a pass of the MCP HTTP request. So a
 * tool gets exactly what the same REST request would (permissions, filter grammar, limits, errors),
 * and the HTTP request is authenticated and charged to the rate limit once, whatever the tool does.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { materialize } from '../compile/json-text.ts';
import type { RestHandler } from '../rest/handler.ts';
import type { QueryValue, RestRequest } from '../rest/request.ts';
import { HeaderBag } from '../header-bag.ts';

export interface RestAnswer {
  status: number;
  /** The REST body as plain JSON values. */
  body: unknown;
}

/** A GET; with a `body`, a POST of that JSON body (only to routes that read, such as /api/match). */
export type RestGet = (path: string, query?: Record<string, QueryValue | number | boolean>, body?: unknown) => Promise<RestAnswer>;

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

/** `onStatus` is told each answer's status (usage counts a failed tool call as an error). */
export function restGet(handle: RestHandler, first: RestRequest, onStatus: (status: number) => void): RestGet {
  return async (path, query = {}, sent = undefined) => {
    const request: RestRequest = {
      method: sent === undefined ? 'GET' : 'POST',
      path,
      query: queryText(query),
      body: sent,
      requestId: first.requestId,
      header: (name) => first.header(name),
      responseHeaders: new HeaderBag(),
      passOf: first,
      ...(first.signal ? { signal: first.signal } : {}),
    };
    const [body, init] = await handle(request);
    onStatus(init.status);
    return { status: init.status, body: materialize(body) };
  };
}

/** As a query string would carry them; absent parameters are left out (the route refuses unknown ones). */
function queryText(query: Record<string, QueryValue | number | boolean>): Record<string, QueryValue> {
  const text: Record<string, QueryValue> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    text[name] = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  }
  return text;
}

/** What a model reads back from a refused request: the code, the message, each detail, and how to go on. */
const NEXT_STEP: Readonly<Record<string, string>> = {
  FILTER_PARSE_ERROR: 'Fix the filter at that position and call again; the resource venture-data://filter-grammar has the grammar.',
  UNKNOWN_FILTER: 'Use one of the close matches, or call describe_filters for the fields this resource filters on.',
  UNSUPPORTED_OPERATOR: 'Use one of the allowed operators; describe_filters lists them per field.',
  FILTER_VALIDATION_ERROR: 'Give a value of the field\'s type; ids of locations come from lookup_values.',
  VALIDATION_ERROR: 'Correct the named argument and call again.',
  FORBIDDEN: 'The access token lacks this permission; do not retry, tell the user which permission the key needs.',
  NOT_FOUND: 'No such record is visible to this caller; check the id (a search tool finds ids).',
  RATE_LIMITED: 'Wait the given time before the next call.',
};

export function toolError(answer: RestAnswer): CallToolResult {
  const { error } = answer.body as ErrorEnvelope;
  // A tool's arguments are not a query string: `query.filter` is the tool's `filter`.
  const details = (error.details ?? []).map((detail) => `- ${detail.path.replace(/^query\./, '')}: ${detail.message}`);
  const next = NEXT_STEP[error.code];
  const text = [`${error.code} (${answer.status}): ${error.message}`, ...details, ...(next ? [next] : [])].join('\n');
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A successful tool answer: the structured value, and the same as JSON text for clients that read only text. */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  return { structuredContent: value, content: [{ type: 'text', text: JSON.stringify(value) }] };
}
