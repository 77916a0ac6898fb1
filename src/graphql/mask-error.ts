/**
 * What a client may see of a GraphQL error. AppErrors keep their code and message; GraphQL's own
 * syntax and validation errors (no original error) become VALIDATION_ERROR; anything else is logged
 * with the request id and masked as INTERNAL_ERROR, so no stack, SQL or secret leaves the server.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, findAppError, internalError, STATUS_BY_CODE, toGraphQLError } from '../errors.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../db/unavailable.ts';
import type { Logger } from '../logger.ts';

export function createErrorMasker(logger: Logger) {
  return (error: unknown): GraphQLError => {
    const appError = findAppError(error);
    if (appError) return toGraphQLError(appError);
    if (error instanceof GraphQLError && (!error.originalError || isVariableError(error))) {
      const validation = new AppError('VALIDATION_ERROR', error.message);
      return new GraphQLError(error.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        extensions: { ...error.extensions, code: validation.code, http: { status: validation.status, spec: false } },
      });
    }
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error }, 'database unavailable');
      return toGraphQLError(databaseUnavailable());
    }
    // The request id comes with the log line from the request's scope (src/logger.ts).
    logger.error({ err: error }, 'unexpected error while executing GraphQL');
    return toGraphQLError(internalError());
  };
}

/**
 * A variable value of the wrong type (`"many"` for an Int, 2^31, an object for a String): graphql-js
 * reports it before execution, without a path, keeping the scalar's own error as the original.
 */
function isVariableError(error: GraphQLError): boolean {
  return error.path === undefined && error.message.startsWith('Variable "$');
}

/**
 * GraphQL validation failures (unknown fields, wrong argument types, armor limits) are the client's
 * bad input like any other: VALIDATION_ERROR with status 400, not yoga's own code with a 200.
 */
export function useValidationErrorCode(): Plugin {
  return {
    onValidate: () => ({ result, setResult }) => {
      if (result.length === 0) return;
      setResult(
        result.map(
          (error) =>
            new GraphQLError(error.message, {
              nodes: error.nodes,
              source: error.source,
              positions: error.positions,
              path: error.path,
              // spec: false keeps yoga from answering 200 for application/json, as GraphQL-over-HTTP
              // allows; this API gives every bad input the status of its code.
              extensions: { code: 'VALIDATION_ERROR', http: { status: STATUS_BY_CODE.VALIDATION_ERROR, spec: false } },
            }),
        ),
      );
    },
  };
}
