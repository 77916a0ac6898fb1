/**
 * Runs prepared (already parsed and validated) operations for REST: no HTTP round trip and no
 * re-parsing, yet the same context and, through yoga's envelop pipeline, the same plugins as /graphql.
 * Building the context is a separate step so REST can authenticate and authorize a request before it
 * validates parameters, in the contract's order of checks. The pipeline is entered only when an
 * operation runs through `execute`: a read served from its compiled plan never needs it.
 */
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { GraphQLContext } from '../schema/context.ts';
import type { ContextFactory, GraphQLServer, TransportContext } from './yoga.ts';

export interface OperationRun {
  /** The request's GraphQL context (where authentication happens; may throw an AppError). */
  readonly context: GraphQLContext;
  execute(document: DocumentNode, variables: Record<string, unknown>): Promise<ExecutionResult>;
}

export type OperationRunner = (transport: TransportContext) => Promise<OperationRun>;

/** `createContext` is the one the server was built with, so both ways give an operation the same context. */
export function createOperationRunner(server: GraphQLServer, createContext: ContextFactory): OperationRunner {
  return (transport) => Promise.resolve(createContext(transport)).then((context) => new Run(server, transport, context));
}

// A class, so a request that never runs `execute` (a compiled read) makes no closure for it.
class Run implements OperationRun {
  constructor(
    private readonly server: GraphQLServer,
    private readonly transport: TransportContext,
    readonly context: GraphQLContext,
  ) {}

  async execute(document: DocumentNode, variables: Record<string, unknown>): Promise<ExecutionResult> {
    const { execute, schema } = this.server.getEnveloped({ ...this.transport, params: { query: undefined } });
    return (await execute({ schema, document, variableValues: variables, contextValue: this.context })) as ExecutionResult;
  }
}
