/**
 * The REST API as data: each row maps a method and path to a prepared GraphQL operation, says how the
 * request becomes variables and how the result becomes the response. No resource logic lives here;
 * the GraphQL resolvers hold it, so both transports answer alike.
 */
import { parseApiKeyInput } from '../auth/api-keys.ts';
import { AppError, validationError } from '../errors.ts';
import { itemsEnvelope, listEnvelope, recordEnvelope, type RestResult } from './envelope.ts';
import { QueryReader, type RestRequest } from './request.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  /** Stable id, e.g. `entities.list`. */
  id: string;
  method: HttpMethod;
  /** Path template with `{param}` segments, e.g. `/api/entities/{id}`. */
  path: string;
  /** Name of the prepared operation in operations/*.graphql. */
  operation: string;
  /** Request → operation variables; throws VALIDATION_ERROR (paths like `query.limit`, `path.id`). */
  toVariables(request: RestRequest, params: Record<string, string>): Record<string, unknown>;
  /** Operation data → response; `fields` is the parsed `fields=` selection, if any. */
  toResult(data: Record<string, unknown>, fields: Set<string> | undefined): RestResult;
}

const NUMERIC_ID = /^\d+$/;

const MAX_ID = 2_147_483_647;

/**
 * A path id as the contract says: `^\d+$`, else 400. Digits beyond the id range are a well-formed id
 * that no record has, so they are 404 like any other missing one.
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

/**
 * `GET <path>`: a paged list (limit, offset, include_total); a searchable one also takes filter, sort
 * and cursor.
 */
function listRoute(id: string, path: string, operation: string, { searchable = true } = {}): Route {
  return {
    id,
    method: 'GET',
    path,
    operation,
    toVariables: (request) => {
      const query = new QueryReader(request.query);
      const variables = {
        ...(searchable ? { filter: query.string('filter'), sort: query.string('sort'), cursor: query.string('cursor') } : {}),
        limit: query.integer('limit'),
        offset: query.integer('offset'),
        withTotal: query.boolean('include_total') ?? false,
      };
      query.done();
      return variables;
    },
    toResult: (data, fields) => listEnvelope(data, fields),
  };
}

/** `GET <path>`: a paged list without filter or sort. */
const pageRoute = (id: string, path: string, operation: string): Route =>
  listRoute(id, path, operation, { searchable: false });

/** `GET <path>/{id}`: one record, 404 when the operation returns null. */
function recordRoute(id: string, path: string, operation: string, what: string): Route {
  return {
    id,
    method: 'GET',
    path,
    operation,
    toVariables: (_request, params) => ({ id: numericId(params) }),
    toResult: (data, fields) => recordEnvelope(data, fields, what),
  };
}

/**
 * `POST <path>`: the JSON body becomes the variables (`parseBody` throws VALIDATION_ERROR with
 * `body.<field>` paths); the operation's `record` is returned as `{data}` with 201.
 */
function createRoute(
  id: string,
  path: string,
  operation: string,
  parseBody: (body: unknown, params: Record<string, string>) => Record<string, unknown>,
): Route {
  return {
    id,
    method: 'POST',
    path,
    operation,
    toVariables: (request, params) => parseBody(request.body, params),
    toResult: (data) => ({ status: 201, body: { data: data.record } }),
  };
}

/** `DELETE <path>/{id}`: 204 without a body (the operation throws NOT_FOUND for a missing record). */
function deleteRoute(id: string, path: string, operation: string): Route {
  return {
    id,
    method: 'DELETE',
    path,
    operation,
    toVariables: (_request, params) => ({ id: numericId(params) }),
    toResult: () => ({ status: 204, body: undefined }),
  };
}

/** `GET /api/filters/location/values?q=&limit=`: location ids for `location` filters. */
const locationValuesRoute: Route = {
  id: 'filters.locations',
  method: 'GET',
  path: '/api/filters/location/values',
  operation: 'ListLocations',
  toVariables: (request) => {
    const query = new QueryReader(request.query);
    const variables = { q: query.string('q'), limit: query.integer('limit') };
    query.done();
    return variables;
  },
  toResult: (data) => itemsEnvelope(data),
};

/** `GET /api/filters/{resource}`: what the resource's filter and sort accept. */
const filterFieldsRoute: Route = {
  id: 'filters.fields',
  method: 'GET',
  path: '/api/filters/{resource}',
  operation: 'ListFilterFields',
  toVariables: (_request, params) => ({ resource: params.resource }),
  toResult: (data) => itemsEnvelope(data),
};

const USAGE_PARAMETERS = ['start_date', 'end_date', 'granularity', 'client_id'];

/**
 * `GET /api/usage/timeseries`: the parameters pass as text and the resolver checks them
 * (src/usage/timeseries.ts), so both transports report the same details; `{data}` without `page`.
 */
const usageTimeseriesRoute: Route = {
  id: 'usage.timeseries',
  method: 'GET',
  path: '/api/usage/timeseries',
  operation: 'UsageTimeseries',
  toVariables: (request) => {
    const query = new QueryReader(request.query);
    for (const name of Object.keys(request.query).filter((key) => !USAGE_PARAMETERS.includes(key))) {
      query.details.push({ path: `query.${name}`, message: `is not a parameter here; known: ${USAGE_PARAMETERS.join(', ')}` });
    }
    const variables = Object.fromEntries(USAGE_PARAMETERS.map((name) => [name, query.string(name)]));
    query.done();
    return variables;
  },
  toResult: (data) => ({ status: 200, body: { data: (data.series as { data: unknown[] }).data } }),
};

export const routes: readonly Route[] = [
  listRoute('entities.list', '/api/entities', 'ListEntities'),
  recordRoute('entities.get', '/api/entities/{id}', 'GetEntity', 'Entity'),
  listRoute('investors.list', '/api/investors', 'ListInvestors'),
  recordRoute('investors.get', '/api/investors/{id}', 'GetInvestor', 'Investor'),
  listRoute('founders.list', '/api/founders', 'ListFounders'),
  recordRoute('founders.get', '/api/founders/{id}', 'GetFounder', 'Founder'),
  listRoute('transactions.list', '/api/transactions', 'ListTransactions'),
  recordRoute('transactions.get', '/api/transactions/{id}', 'GetTransaction', 'Transaction'),
  listRoute('valuations.list', '/api/valuations', 'ListValuations'),
  recordRoute('valuations.get', '/api/valuations/{id}', 'GetValuation', 'Valuation'),
  listRoute('news.list', '/api/news', 'ListNews'),
  recordRoute('news.get', '/api/news/{id}', 'GetNews', 'News article'),
  locationValuesRoute,
  filterFieldsRoute,
  pageRoute('api-keys.list', '/api/api-keys', 'ListApiKeys'),
  createRoute('api-keys.create', '/api/api-keys', 'CreateApiKey', (body) => ({ ...parseApiKeyInput(body, 'body') })),
  deleteRoute('api-keys.revoke', '/api/api-keys/{id}', 'RevokeApiKey'),
  usageTimeseriesRoute,
];
