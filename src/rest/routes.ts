/**
 * The REST API as data, derived from the resource declarations (src/schema/resource.ts): each row maps
 * a method and path to a prepared GraphQL operation and says, by its kind, how the request becomes
 * variables and how the result becomes the response. No resource logic lives here; the GraphQL
 * resolvers hold it, so both transports answer alike.
 */
// The schema index first: importing it declares every resource, in the documented order.
import '../api-schema.ts';
import { AppError, validationError } from '../errors.ts';
import { declaredResources, type HttpMethod, type RestKind, type RestRow } from '../schema/resource.ts';
import { aggregateEnvelope, feedEnvelope, itemsEnvelope, listEnvelope, rankingEnvelope, recordEnvelope, type RestResult } from './envelope.ts';
import { QueryReader, type IntegerBounds, type RestRequest } from './request.ts';

export type { HttpMethod } from '../schema/resource.ts';

export interface Route {
  /** Stable id, e.g. `entities.GetEntity`: the resource, then the operation. */
  id: string;
  method: HttpMethod;
  /** Path template with `{param}` segments, e.g. `/api/entities/{id}`. */
  path: string;
  /** Name of the prepared operation in operations/*.graphql. */
  operation: string;
  kind: RestKind;
  /** Path parameters taken as text, with the pattern each must match (else 400). */
  textParams?: RestRow['textParams'];
  /** The zod schema of the JSON body, when the route takes one (the OpenAPI document's request body). */
  bodySchema?: RestRow['bodySchema'];
  /** The zod object of its query parameters, when its resolver checks them with one. */
  querySchema?: RestRow['querySchema'];
  /** Error statuses beyond those of its kind. */
  errors?: RestRow['errors'];
  /** What an `aggregate` route aggregates. */
  aggregates?: RestRow['aggregates'];
  /** Query parameters named otherwise than the operation's arguments (error details use them). */
  argumentNames?: RestRow['argumentNames'];
  /** Request → operation variables; throws VALIDATION_ERROR (paths like `query.limit`, `path.id`). */
  /** `bounds`: the ranges of the route's integer query parameters (RestHandlerOptions.queryBounds). */
  toVariables(request: RestRequest, params: Record<string, string>, bounds?: IntegerBounds): Record<string, unknown>;
  /** Operation data → response; `fields` is the parsed `fields=` selection, if any. */
  toResult(data: Record<string, unknown>, fields: Set<string> | undefined): RestResult;
}

const NUMERIC_ID = /^\d+$/;

const MAX_ID = 2_147_483_647;

/**
 * A path id as docs/read-api.md says: `^\d+$`, else 400. Digits beyond the id range are a well-formed
 * id that no record has, so they are 404 like any other missing one.
 */
export function numericId(params: Record<string, string>, name = 'id'): number {
  const value = params[name] ?? '';
  if (!NUMERIC_ID.test(value)) {
    throw validationError([{ path: `path.${name}`, message: 'must be a positive integer id' }]);
  }
  const id = Number(value);
  if (id > MAX_ID) throw new AppError('NOT_FOUND', `No record with id ${value}`);
  return id;
}

function pathVariable(row: RestRow, params: Record<string, string>, name: string): unknown {
  const pattern = row.textParams?.[name];
  if (!pattern) return numericId(params, name);
  const value = params[name] ?? '';
  if (!pattern.test(value)) throw validationError([{ path: `path.${name}`, message: `must match ${pattern.source}` }]);
  return value;
}

/** The query parameters a kind reads (besides `fields`, which the handler checks against the record). */
function queryVariables(row: RestRow, query: QueryReader): Record<string, unknown> {
  switch (row.kind) {
    case 'list':
      return {
        filter: query.string('filter'),
        sort: query.string('sort'),
        cursor: query.string('cursor'),
        ...pageVariables(query),
      };
    case 'page':
      return pageVariables(query);
    case 'aggregate':
      return {
        metric: query.strings('metric'),
        group_by: query.string('group_by'),
        filter: query.string('filter'),
        having: query.string('having'),
        sort: query.string('sort'),
        limit: query.integer('limit'),
        offset: query.integer('offset', 0),
      };
    case 'items':
    case 'feed':
    case 'ranking':
      return Object.fromEntries(
        (row.query ?? []).map(({ name, type, required }) => {
          const value = type === 'integer' ? query.integer(name) : type === 'boolean' ? query.boolean(name) : query.string(name);
          if (required && value === undefined && !query.details.some((detail) => detail.path === `query.${name}`)) {
            query.details.push({ path: `query.${name}`, message: 'is required' });
          }
          return [name, value];
        }),
      );
    default:
      return {};
  }
}

function pageVariables(query: QueryReader): Record<string, unknown> {
  return { limit: query.integer('limit'), offset: query.integer('offset', 0), withTotal: query.boolean('include_total') ?? false };
}

const SUCCESS: Readonly<Record<RestKind, (data: Record<string, unknown>, fields: Set<string> | undefined, row: RestRow) => RestResult>> = {
  list: (data, fields) => listEnvelope(data, fields),
  page: (data, fields) => listEnvelope(data, fields),
  items: (data) => itemsEnvelope(data),
  record: (data, fields, row) => recordEnvelope(data, fields, row.noun ?? 'Record'),
  created: (data, fields, row) => ({ ...recordEnvelope(data, fields, row.noun ?? 'Record'), status: 201 }),
  accepted: (data, fields, row) => ({
    ...recordEnvelope(data, fields, row.noun ?? 'Record'),
    status: 202,
    headers: { Location: `${row.path}/${(data.record as { id: number }).id}` },
  }),
  deleted: () => ({ status: 204, body: undefined }),
  aggregate: (data) => aggregateEnvelope(data),
  feed: (data) => feedEnvelope(data),
  ranking: (data) => rankingEnvelope(data),
};

function toRoute(resource: string, row: RestRow): Route {
  return {
    id: `${resource}.${row.operation}`,
    method: row.method,
    path: row.path,
    operation: row.operation,
    kind: row.kind,
    textParams: row.textParams,
    bodySchema: row.bodySchema,
    querySchema: row.querySchema,
    ...(row.aggregates ? { aggregates: row.aggregates } : {}),
    ...(row.errors ? { errors: row.errors } : {}),
    ...(row.argumentNames ? { argumentNames: row.argumentNames } : {}),
    toVariables: (request, params, bounds) => {
      const query = new QueryReader(request.query, bounds);
      // Path parameters (numeric ids unless the row takes them as text), then the query's, then the body's.
      const variables: Record<string, unknown> = {};
      for (const name in params) variables[name] = pathVariable(row, params, name);
      Object.assign(variables, queryVariables(row, query));
      query.done();
      if (row.headers) Object.assign(variables, row.headers((name) => request.header(name)));
      return row.body ? Object.assign(variables, row.body(request.body)) : variables;
    },
    toResult: (data, fields) => SUCCESS[row.kind](data, fields, row),
  };
}

/** Every REST route, in declaration order. */
export const routes: readonly Route[] = declaredResources().flatMap((resource) =>
  (resource.rest ?? []).map((row) => toRoute(resource.name, row)),
);
