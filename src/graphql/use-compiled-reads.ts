/**
 * Serves read operations from compiled SQL (src/compile) instead of the resolvers, for the one
 * operation runner (src/graphql/operation-runner.ts), after authentication, the access rules,
 * validation and the cost limits:
 * - a /graphql document is planned on first use (`read`), per value of the variables @skip/@include read;
 * - REST's prepared operations are planned once at start-up (`prepare`).
 * An operation the compiler does not cover, or a request whose arguments it leaves to the resolvers
 * (an invalid filter, say, whose error the resolvers word and place), simply continues to the
 * resolvers: they remain the reference, and the compiled answer must equal theirs (test/integration/compile/).
 */
import { getOperationAST, Kind, locatedError, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, type TypeNode } from 'graphql';
import { Counter, type Registry } from 'prom-client';
import { coerceVariables, compileOperation, OwnStatement, type CompiledOperation, type Variables } from '../compile/operation.ts';
import type { Models } from '../compile/model.ts';
import { FALLBACK_REASONS, NotCompiled, type FallbackReason } from '../compile/statement.ts';
import { findAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { createErrorMasker } from './mask-error.ts';
import { tally } from '../tally.ts';
import type { GraphQLContext } from '../schema/context.ts';

/** An operation's compiled form for each combination of the variables its @skip/@include read, or why there is none. */
type Plans = Map<string, CompiledOperation | NotCompiled>;

/** What `read` answers when the resolvers must serve the operation instead (counted and logged already). */
export const FELL_BACK = Symbol('fell back to the resolvers');

/** A prepared (REST) operation, planned at start-up for every value of its Boolean variables. */
export interface PreparedRead {
  /** The operation's result from compiled SQL, or FELL_BACK (counted and logged): the resolvers answer it. */
  read(context: GraphQLContext, variables: Variables): Promise<ExecutionResult | typeof FELL_BACK>;
}

export interface CompiledReads {
  /** A query's result from its compiled plan (planned on first use), or FELL_BACK (counted and logged). */
  read(document: DocumentNode, operation: OperationDefinitionNode, context: GraphQLContext, variables: Variables): Promise<ExecutionResult | typeof FELL_BACK>;
  /** The prepared operation's plans, or undefined when it is not a query (writes are not reads). */
  prepare(document: DocumentNode): PreparedRead | undefined;
}

/**
 * Every query operation is counted once: served compiled (`compiled_reads_total`) or left to the
 * resolvers (`compiled_reads_fallback_total{reason}`, and a debug line with the request id and why).
 * `compiled_reads_direct_total` counts, of the compiled ones, those served from plans made at start-up
 * (REST's routes), which no request's variables had to plan.
 */
export function createCompiledReads(logger: Logger, registry: Registry, schema: GraphQLSchema, models: Models): CompiledReads {
  const plansByDocument = new WeakMap<DocumentNode, Plans>();
  // A failed compiled read is masked (and logged) as any GraphQL error is.
  const maskError = createErrorMasker(logger);
  const compiledReads = tally({ name: 'compiled_reads_total', help: 'Query operations served by compiled SQL', registers: [registry] });
  const directReads = tally({
    name: 'compiled_reads_direct_total',
    help: 'Of compiled_reads_total, the operations served from plans made at start-up (REST routes)',
    registers: [registry],
  });
  const fallbacks = new Counter({
    name: 'compiled_reads_fallback_total',
    help: 'Query operations served by the resolvers instead of compiled SQL, by reason (docs/compiled-reads.md)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of FALLBACK_REASONS) fallbacks.inc({ reason }, 0);
  const fallBack = (context: GraphQLContext, reason: FallbackReason, detail: string): typeof FELL_BACK => {
    fallbacks.inc({ reason });
    logger.debug({ requestId: context.requestId, reason, detail }, 'read served by the resolvers');
    return FELL_BACK;
  };

  /** The plan for these variables, compiled on first use; a NotCompiled is kept as the answer too. */
  const planFor = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): CompiledOperation | NotCompiled => {
    let plans = plansByDocument.get(document);
    if (!plans) plansByDocument.set(document, (plans = new Map()));
    const key = `${operation.name?.value ?? ''}${directiveVariables(operation, variables)}`;
    let plan = plans.get(key);
    if (!plan) plans.set(key, (plan = compile(schema, document, operation, variables, models)));
    return plan;
  };

  /** Runs a plan: its result, or FELL_BACK (counted) when the resolvers must answer; `direct`: a plan made at start-up. */
  const run = async (
    plan: CompiledOperation | NotCompiled,
    operation: OperationDefinitionNode,
    context: GraphQLContext,
    variables: Variables,
    direct = false,
  ): Promise<ExecutionResult | typeof FELL_BACK> => {
    // Aggregates: their resolvers run one statement of their own, neither a compiled read nor a fallback.
    if (plan instanceof OwnStatement) return FELL_BACK;
    if (plan instanceof NotCompiled) return fallBack(context, plan.reason, plan.message);
    try {
      // Every transport writes results with json-text's `stringify`: the records' JSON goes out as PostgreSQL wrote it.
      const result: ExecutionResult = { data: await plan.read(context, variables) };
      served(direct);
      return result;
    } catch (error) {
      // The resolvers raise the same input errors, with their paths; a compiler gap is theirs to serve.
      if (error instanceof NotCompiled) return fallBack(context, error.reason, error.message);
      const appError = findAppError(error);
      if (appError) return fallBack(context, 'invalid_arguments', appError.message);
      return failed(error, operation, context, direct);
    }
  };

  const served = (direct: boolean) => {
    compiledReads.inc();
    if (direct) directReads.inc();
  };

  /** A compiled read's failure as the pipeline answers it: counted as compiled, masked and logged as any error is. */
  const failed = (error: unknown, operation: OperationDefinitionNode, context: GraphQLContext, direct = false): ExecutionResult => {
    served(direct);
    return { data: null, errors: [maskError(locatedError(error, operation.selectionSet.selections[0] ?? []), context.requestId)] };
  };

  const coerce = (context: GraphQLContext, operation: OperationDefinitionNode, raw: Variables): Variables | typeof FELL_BACK => {
    try {
      return coerceVariables(schema, operation, raw);
    } catch (error) {
      if (error instanceof NotCompiled) return fallBack(context, error.reason, error.message);
      throw error;
    }
  };

  return {
    async read(document, operation, context, raw) {
      const variables = coerce(context, operation, raw);
      if (variables === FELL_BACK) return FELL_BACK;
      return run(planFor(schema, document, operation, variables), operation, context, variables);
    },

    prepare(document) {
      const operation = getOperationAST(document);
      if (!operation || operation.operation !== 'query') return undefined;
      // Every plan now, indexed by the bits of the Boolean variables, so a request looks nothing else up.
      const booleans = (operation.variableDefinitions ?? []).filter((definition) => isBoolean(definition.type)).map((definition) => definition.variable.name.value);
      const plans: (CompiledOperation | NotCompiled)[] = [];
      for (let bits = 0; bits < 2 ** booleans.length; bits += 1) {
        plans.push(planFor(schema, document, operation, Object.fromEntries(booleans.map((name, index) => [name, (bits & (1 << index)) !== 0]))));
      }
      return {
        read: (context, raw) => {
          const variables = coerce(context, operation, raw);
          if (variables === FELL_BACK) return Promise.resolve(FELL_BACK);
          let bits = 0;
          for (let index = 0; index < booleans.length && bits >= 0; index += 1) {
            const value = variables[booleans[index]!];
            // A nullable Boolean left out or null keys a plan of its own (planFor's key says `undefined`).
            bits = value === true ? bits | (1 << index) : value === false ? bits : -1;
          }
          const plan = bits >= 0 ? plans[bits]! : planFor(schema, document, operation, variables);
          return run(plan, operation, context, variables, true);
        },
      };
    },
  };
}

function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Variables,
  models: Models,
): CompiledOperation | NotCompiled {
  try {
    return compileOperation(schema, document, operation, variables, models);
  } catch (error) {
    if (error instanceof NotCompiled) return error;
    throw error;
  }
}

/** The boolean variables an operation declares: @skip/@include can only read these, so they key a plan. */
function directiveVariables(operation: OperationDefinitionNode, variables: Variables): string {
  return (operation.variableDefinitions ?? [])
    .filter((definition) => isBoolean(definition.type))
    .map((definition) => `|${definition.variable.name.value}=${String(variables[definition.variable.name.value])}`)
    .join('');
}

const isBoolean = (type: TypeNode): boolean =>
  type.kind === Kind.NON_NULL_TYPE ? isBoolean(type.type) : type.kind === Kind.NAMED_TYPE && type.name.value === 'Boolean';
