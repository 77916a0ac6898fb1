/**
 * Responses: the REST envelopes around the operation's result (src/rest/envelope.ts), and the error
 * envelope with the statuses of docs/read-api.md (Errors), one shared component per status (STATUS_BY_CODE).
 */
import { STATUS_CODES } from 'node:http';
import { ERROR_CODES, STATUS_BY_CODE } from '../errors.ts';
import type { Route } from '../rest/routes.ts';
import type { OperationShape } from './operation-shape.ts';
import type { RoutePermission } from './permissions.ts';
import { componentRef, exactObject } from './schema-helpers.ts';
import type { SelectionWalker } from './schemas-from-graphql.ts';
import type { HeaderObject, JsonSchema, Reference, ResponseObject } from './types.ts';

const JSON_TYPE = 'application/json';
const CSV_TYPE = 'text/csv';
const CSV_TEXT = 'With `format=csv` or `Accept: text/csv`: every matching record (all pages), a header row, nested values as JSON';

/** `format=csv`: the list as CSV (or send `Accept: text/csv`). */
export const FORMAT_PARAMETER = {
  name: 'format',
  in: 'query' as const,
  required: false,
  schema: { type: 'string' as const, enum: ['json', 'csv'], default: 'json' },
  description: '`csv` exports every matching record (all pages, `limit` is then the page size fetched); same as `Accept: text/csv`.',
};

const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': headerRef('RateLimit-Limit'),
  'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
  'RateLimit-Reset': headerRef('RateLimit-Reset'),
};

export const HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': { description: 'Echoes a well-formed incoming X-Request-Id, else a generated one', schema: { type: 'string' } },
  // On every answer of /api once the token is verified, refusals included (src/auth/authenticate.ts).
  'RateLimit-Limit': { description: "The caller's burst: requests allowed at once", schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left before 429', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the allowance is full again', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'WWW-Authenticate': { description: '`Bearer`, with `error="invalid_token"` for a rejected token', schema: { type: 'string' } },
  Allow: { description: 'The methods the path takes', schema: { type: 'string' } },
  Deprecation: { description: '`true` when the filter used the deprecated `in`/`nin`', schema: { type: 'string', const: 'true' } },
};

/** Extra headers on an error status beyond X-Request-Id and RateLimit-* (rateLimitHeaders). */
const ERROR_HEADERS: Readonly<Record<number, Record<string, Reference>>> = {
  401: { 'WWW-Authenticate': headerRef('WWW-Authenticate') },
  405: { Allow: headerRef('Allow') },
  429: { 'Retry-After': headerRef('Retry-After') },
  503: { 'Retry-After': headerRef('Retry-After') },
};

/**
 * The statuses /api answers before it reads the token: another method on a path (the route table,
 * src/rest/handler.ts), a body over the limits (the body reader) and what node:http could not read
 * in time or at all (src/http/server.ts). Every other answer may carry the
 * caller's RateLimit-*: they are set once the token is verified, refusals included (src/auth/authenticate.ts).
 */
const BEFORE_THE_TOKEN = new Set([405, 408, 413, 431]);

/** The RateLimit-* an answer of /api with this status may carry: the one rule for every response. */
const rateLimitHeaders = (status: number): Record<string, Reference> => (BEFORE_THE_TOKEN.has(status) ? {} : RATE_LIMIT_HEADERS);

/** The headers every answer of /api with this status carries: its X-Request-Id, and RateLimit-* once the token is read. */
export const apiAnswerHeaders = (status: number): Record<string, Reference> => ({ 'X-Request-Id': headerRef('X-Request-Id'), ...rateLimitHeaders(status) });

/** The error envelope carrying `codes` (every code, or those of one status). */
const errorSchema = (codes: readonly string[]): JsonSchema =>
  exactObject({
    error: exactObject(
      {
        code: { type: 'string', enum: codes, description: 'Stable; the message is for humans' },
        message: { type: 'string' },
        details: { type: 'array', items: { $ref: componentRef('ErrorDetail') }, description: 'One row per problem' },
      },
      ['details'],
    ),
  });

/** Each error response carries the envelope of its status's codes (errorResponseComponents). */
export const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  ErrorDetail: exactObject({
    path: { type: 'string', description: 'Where the problem is, e.g. `query.limit`, `body.name`, `header.user-agent`' },
    message: { type: 'string' },
  }),
};

const errorComponentName = (status: number): string => `Error${status}`;

const errorHeaders = (status: number): Record<string, Reference> => ({ 'X-Request-Id': headerRef('X-Request-Id'), ...ERROR_HEADERS[status] });

/**
 * An error status of a path outside /api (the token endpoint, the operational ones): the component's
 * envelope, without RateLimit-*, which only an /api token's bucket gives.
 */
export function publicErrorResponse(status: number): ResponseObject {
  const component = errorResponseComponents()[errorComponentName(status)];
  if (!component) throw new Error(`OpenAPI: no error code has status ${status}`);
  return { ...component, headers: errorHeaders(status) };
}

/** One response component per error status, describing which codes it carries. */
export function errorResponseComponents(): Record<string, ResponseObject> {
  const codesByStatus = new Map<number, string[]>();
  for (const code of ERROR_CODES) {
    const status = STATUS_BY_CODE[code];
    codesByStatus.set(status, [...(codesByStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...codesByStatus].map(([status, codes]) => [
      errorComponentName(status),
      {
        description: `${STATUS_CODES[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}`,
        headers: { ...errorHeaders(status), ...rateLimitHeaders(status) },
        content: {
          [JSON_TYPE]: {
            // Narrowed to the codes of this status, so examples and clients see the right ones.
            schema: errorSchema(codes),
            example: { error: { code: codes[0]!, message: STATUS_CODES[status] ?? 'Error' } },
          },
        },
      },
    ]),
  );
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The error statuses a route can answer (the order of checks in docs/read-api.md, Errors). */
export function errorStatuses(route: Route, permission: RoutePermission): number[] {
  const write = WRITE_METHODS.has(route.method);
  return [
    400, // headers, parameters, body
    401,
    ...(permission.canForbid || write ? [403] : []), // writes also check whose record it is
    // A record named by the path, or, for a write that creates nothing, by the body (an invitation's token).
    ...(route.path.includes('{') || (write && route.kind !== 'created' && route.kind !== 'accepted') ? [404] : []),
    405, // another method on the path, with Allow
    408, // the request not received in time (src/http/server.ts)
    ...(write ? [409] : []),
    ...(route.kind === 'feed' ? [410] : []), // a cursor older than what the feed keeps
    ...(BODY_METHODS.has(route.method) ? [413] : []),
    ...(route.errors ?? []),
    429,
    431, // a request line and headers over node's limit: a filter that long in the URL
    500,
    503,
  ].sort((a, b) => a - b);
}

export function errorResponses(statuses: number[]): Record<string, Reference> {
  return Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorComponentName(status)}` }]),
  );
}

const SUCCESS_TEXT: Readonly<Record<string, string>> = {
  list: 'One page of records',
  record: 'The record',
  items: 'The items',
  aggregate: 'One page of groups, with the total number of groups and the query as read',
  feed: 'One page of changes in commit order, with the cursor to continue from',
  ranking: 'The best matches, best first, each with the reasons for its score',
};

/** The success response: status by the route's kind, body by the envelope the route uses. */
export function successResponse(route: Route, shape: OperationShape, walker: SelectionWalker): [string, ResponseObject] {
  const status = route.kind === 'deleted' ? '204' : route.kind === 'created' ? '201' : route.kind === 'accepted' ? '202' : '200';
  const headers: Record<string, Reference> = apiAnswerHeaders(Number(status));
  if (status === '204') return [status, { description: 'Done; no body', headers }];
  if (shape.key === 'list' && shape.variables.some((variable) => variable.name === 'filter')) {
    headers.Deprecation = headerRef('Deprecation');
  }
  const schema = envelopeSchema(shape, walker);
  const description = status === '201' ? 'Created' : (SUCCESS_TEXT[shape.key] ?? 'Done');
  const content: Record<string, { schema: JsonSchema }> = schema ? { [JSON_TYPE]: { schema } } : {};
  // Every GET list and aggregate also exports as CSV (src/rest/csv-export.ts): all pages, one header row.
  if (exportsCsv(route, shape)) content[CSV_TYPE] = { schema: { type: 'string', description: CSV_TEXT } };
  return [status, { description, headers, ...(Object.keys(content).length ? { content } : {}) }];
}

/** Whether the route answers `format=csv`: GET lists and aggregates. */
export const exportsCsv = (route: Route, shape: OperationShape): boolean =>
  route.method === 'GET' && (shape.key === 'list' || route.kind === 'aggregate');

/** `{data, page}` for lists, `{data}` for one record or a short list (src/rest/envelope.ts); an aggregate's answer as it is. */
function envelopeSchema(shape: OperationShape, walker: SelectionWalker): JsonSchema | undefined {
  const result = () => walker.outputNonNull(shape.rootField.type, shape.root.selectionSet);
  if (shape.key === 'list' || shape.key === 'aggregate' || shape.key === 'feed' || shape.key === 'ranking') return result();
  // A null record is 404, so `data` is never null.
  if (shape.key === 'record' || shape.key === 'items') return exactObject({ data: result() });
  return undefined;
}
