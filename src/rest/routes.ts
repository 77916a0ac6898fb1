/**
 * The REST API as data: each row maps a method and path to a prepared GraphQL operation, says how the
 * request becomes variables and how the result becomes the response. No resource logic lives here;
 * the GraphQL resolvers hold it, so both transports answer alike.
 */
import { validationError } from '../errors.ts';
import { listEnvelope, recordEnvelope, type RestResult } from './envelope.ts';
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

const NUMERIC_ID = /^\d{1,9}$/;

/** A path id as the contract says: `^\d+$` (and small enough to be an id), else 400. */
export function numericId(params: Record<string, string>, name = 'id'): number {
  const value = params[name] ?? '';
  if (!NUMERIC_ID.test(value) || Number(value) > 2_147_483_647) {
    throw validationError([{ path: `path.${name}`, message: 'must be a positive integer id' }]);
  }
  return Number(value);
}

/** `GET <path>`: a filtered, sorted, paged list. */
function listRoute(id: string, path: string, operation: string): Route {
  return {
    id,
    method: 'GET',
    path,
    operation,
    toVariables: (request) => {
      const query = new QueryReader(request.query);
      const variables = {
        filter: query.string('filter'),
        sort: query.string('sort'),
        limit: query.integer('limit'),
        offset: query.integer('offset'),
        cursor: query.string('cursor'),
        withTotal: query.boolean('include_total') ?? false,
      };
      query.done();
      return variables;
    },
    toResult: (data, fields) => listEnvelope(data, fields),
  };
}

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

export const routes: readonly Route[] = [
  listRoute('entities.list', '/api/entities', 'ListEntities'),
  recordRoute('entities.get', '/api/entities/{id}', 'GetEntity', 'Entity'),
];
