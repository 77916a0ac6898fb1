/**
 * What a client may see of a GraphQL error (docs/graphql-errors.md):
 * - an AppError keeps its code and message; raised in a field, it keeps the field's `path` and
 *   `locations` and is a field error (200, the other fields' data kept);
 * - GraphQL's own request errors (syntax, validation, variables, bad parameters, a mutation by GET)
 *   become VALIDATION_ERROR (METHOD_NOT_ALLOWED for the GET), with the status GraphQL over HTTP
 *   gives them: 200 to a client accepting only `application/json`, their 4xx otherwise;
 * - anything else is logged with the request id and masked as INTERNAL_ERROR, so no stack, SQL or
 *   secret leaves the server.
 */
import { GraphQLError } from 'graphql';
import { findAppError, internalError, STATUS_BY_CODE, toGraphQLError } from '../errors.ts';
import { databaseUnavailable, isCancelledOnRequest, isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Logger } from '../logger.ts';

/** The error as a client may see it; an unexpected one is logged with `requestId`. */
export type ErrorMasker = (error: unknown, requestId?: string) => GraphQLError;

export function createErrorMasker(logger: Logger): ErrorMasker {
  return (error, requestId) => {
    const located = error instanceof GraphQLError ? error : undefined;
    const appError = findAppError(error);
    if (appError) return toGraphQLError(appError, located);
    if (located && (!located.originalError || isVariableError(located))) return requestError(located, isVariableError(located));
    if (isCancelledOnRequest(error)) {
      logger.info({ requestId }, 'statement cancelled on request: its client left before the answer, or an operator cancelled it');
      return toGraphQLError(databaseUnavailable(), located);
    }
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error, requestId }, 'database unavailable');
      return toGraphQLError(databaseUnavailable(), located);
    }
    logger.error({ err: error, requestId }, 'unexpected error while executing GraphQL');
    return toGraphQLError(internalError(), located);
  };
}

/** An error of the document (syntax, a validation rule, an armor limit): the client's bad input, with GraphQL over HTTP's status. */
export const documentError = (error: GraphQLError): GraphQLError => requestError(error, true);

/** What an error carries for HTTP: the status it means, headers to send, and whether GraphQL over HTTP's 200-for-application/json rule applies. */
export interface HttpExtension {
  status?: number;
  spec?: boolean;
  headers?: Record<string, string>;
}

/**
 * A request error of GraphQL itself or of the route's checks, which set the status they mean (405
 * with `Allow` for a mutation by GET). An error of the document (syntax, validation, variable values)
 * is marked `spec`: the route then answers 200 when the client accepts only `application/json`, as
 * GraphQL over HTTP asks, and 400 for `application/graphql-response+json`. Malformed request
 * parameters (`query` not a string, no body) are 400 for both.
 */
function requestError(error: GraphQLError, documentError: boolean): GraphQLError {
  const http = (error.extensions.http ?? {}) as HttpExtension;
  const status = http.status ?? STATUS_BY_CODE.VALIDATION_ERROR;
  const code = status === STATUS_BY_CODE.METHOD_NOT_ALLOWED ? 'METHOD_NOT_ALLOWED' : 'VALIDATION_ERROR';
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { code, http: { status, headers: http.headers, spec: documentError } },
  });
}

/**
 * A variable value of the wrong type (`"many"` for an Int, 2^31, an object for a String): graphql-js
 * reports it before execution, without a path, keeping the scalar's own error as the original.
 */
function isVariableError(error: GraphQLError): boolean {
  return error.path === undefined && error.message.startsWith('Variable "$');
}
