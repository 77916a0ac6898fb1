/**
 * The one operation runner: REST's prepared operations, /graphql documents (once parsed and validated:
 * src/graphql/graphql-request.ts) and MCP's tools (through REST) all run
 * here, with their checks in one order, made once:
 *   1. the access rules with the variables (an operation's rules may read them: filters, new keys);
 *   2. the limits of documents a client wrote (REST's are bounded by their routes): the records of
 *      every batch field together (`match`: work-charges.ts), then the fan-out (searches included);
 *   3. read routing: the replica or the primary, for the whole operation;
 *   4. the compiled plan, when the operation is a query it covers; else
 *   5. the resolvers (graphql-js `execute`), whose errors are masked as every GraphQL error is.
 * What may be a promise is branched here, once: a transport gets a promise of one result.
 */
import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { authorizeOperation } from '../auth/authorize.ts';
import type { Variables } from '../compile/operation.ts';
import { findAppError, toGraphQLError } from '../errors.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { fanOutCost, overLimit } from './fan-out-cost.ts';
import type { ErrorMasker } from './mask-error.ts';
import { batchRecords, overBatchBudget } from './work-charges.ts';
import { isPureIntrospection } from './public-introspection.ts';
import type { ReadRouting } from './read-routing.ts';
import { FELL_BACK, type CompiledReads, type PreparedRead } from './use-compiled-reads.ts';

/** An operation prepared at start-up (a REST route's): its plans, and whether its rules read variables. */
export interface PreparedOperation {
  read: PreparedRead | undefined;
  /** False when the rules were checked in full before the variables were read (REST checks them first). */
  rulesReadVariables: boolean;
}

export interface Operation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName?: string | null | undefined;
  variables: Variables;
  prepared?: PreparedOperation | undefined;
}

export type OperationRunner = (operation: Operation, context: GraphQLContext) => Promise<ExecutionResult>;

export interface OperationRunnerOptions {
  schema: GraphQLSchema;
  compiledReads: CompiledReads | undefined;
  readRouting: ReadRouting | undefined;
  /** GRAPHQL_MAX_FAN_OUT: records a document may reach. */
  maxFanOut: number;
  /** Records the batch fields (`match`) of one request may hold together. */
  maxBatchRecords: number;
  maskError: ErrorMasker;
}

export function createOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const { schema, compiledReads, readRouting } = options;
  // An operation without variables costs the same every time: walked once.
  const fixedCosts = new WeakMap<OperationDefinitionNode, number>();
  const costOf = (document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): number => {
    if (operation.variableDefinitions?.length) return fanOutCost(schema, document, operation, variables);
    let cost = fixedCosts.get(operation);
    if (cost === undefined) fixedCosts.set(operation, (cost = fanOutCost(schema, document, operation, variables)));
    return cost;
  };

  const resolve = async (request: Operation, context: GraphQLContext): Promise<ExecutionResult> => {
    const result = (await execute({
      schema,
      document: request.document,
      operationName: request.operationName,
      variableValues: request.variables,
      contextValue: context,
    })) as ExecutionResult;
    if (result.errors?.length) result.errors = result.errors.map((error) => options.maskError(error, context.requestId));
    return result;
  };

  return async (request, context) => {
    const { document, operation, prepared } = request;
    const refused = refusal(schema, request, context);
    if (refused) return refused;
    if (!prepared) {
      const records = batchRecords(schema, document, operation, request.variables);
      if (records > options.maxBatchRecords) return { errors: [overBatchBudget(records, options.maxBatchRecords)] };
      const cost = costOf(document, operation, request.variables);
      if (cost > options.maxFanOut) return { errors: [overLimit(cost, options.maxFanOut)] };
    }
    let reading = context;
    if (readRouting) reading = { ...context, ...readRouting.route(context, document, request.operationName) };
    if (operation.operation === 'query' && compiledReads) {
      // A fallback is counted where it is decided; the resolvers then answer.
      const compiled = prepared?.read ? await prepared.read.read(reading, request.variables) : await compiledReads.read(document, operation, reading, request.variables);
      if (compiled !== FELL_BACK) return compiled;
    }
    if (operation.operation !== 'mutation' || !readRouting || !context.principal) return resolve(request, reading);
    try {
      return await resolve(request, reading);
    } finally {
      // After the write's transaction committed, before the answer leaves: the principal's next read cannot overtake it.
      await readRouting.remember(context.principal).catch(() => undefined);
    }
  };
}

/** The access rules' refusal as a request error, or undefined; a pure introspection query needs no token. */
function refusal(schema: GraphQLSchema, request: Operation, context: GraphQLContext): ExecutionResult | undefined {
  if (request.prepared && !request.prepared.rulesReadVariables) return undefined;
  if (!context.principal && isPureIntrospection(request.document)) return undefined;
  try {
    authorizeOperation(request.document, context.principal, { schema, variables: request.variables, operationName: request.operationName });
    return undefined;
  } catch (error) {
    const appError = findAppError(error);
    if (!appError) throw error;
    return { errors: [toGraphQLError(appError)] };
  }
}
