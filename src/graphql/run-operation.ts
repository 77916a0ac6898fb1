/**
 * Runs prepared (already parsed and validated) operations through yoga's envelop pipeline. REST uses
 * this: no HTTP round trip and no re-parsing, yet the same plugins and context as /graphql.
 * Building the context is a separate step so REST can authenticate and authorize a request before it
 * validates parameters, in the contract's order of checks.
 */
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { GraphQLContext } from '../schema/context.ts';
import type { GraphQLServer, TransportContext } from './yoga.ts';

export interface OperationRun {
  /** The request's GraphQL context (where authentication happens; may throw an AppError). */
  readonly context: GraphQLContext;
  execute(document: DocumentNode, variables: Record<string, unknown>): Promise<ExecutionResult>;
}

export type OperationRunner = (transport: TransportContext) => Promise<OperationRun>;

export function createOperationRunner(server: GraphQLServer): OperationRunner {
  return async (transport) => {
    const { execute, contextFactory, schema } = server.getEnveloped({ ...transport, params: { query: undefined } });
    const context = (await contextFactory()) as GraphQLContext;
    return {
      context,
      execute: async (document, variables) =>
        (await execute({ schema, document, variableValues: variables, contextValue: context })) as ExecutionResult,
    };
  };
}
