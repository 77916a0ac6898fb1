/**
 * Executes a prepared (already parsed and validated) operation through yoga's envelop pipeline.
 * REST uses this: no HTTP round trip and no re-parsing, yet the same plugins and context as /graphql.
 */
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { GraphQLServer, TransportContext } from './yoga.ts';

export type OperationRunner = (
  document: DocumentNode,
  variables: Record<string, unknown>,
  transport: TransportContext,
) => Promise<ExecutionResult>;

export function createOperationRunner(server: GraphQLServer): OperationRunner {
  return async (document, variables, transport) => {
    const { execute, contextFactory, schema } = server.getEnveloped({
      ...transport,
      params: { query: undefined, variables },
    });
    const contextValue = await contextFactory();
    return (await execute({ schema, document, variableValues: variables, contextValue })) as ExecutionResult;
  };
}
