/**
 * Serves read operations from compiled SQL (src/compile) instead of the resolvers, on both transports:
 * REST's prepared operations and /graphql documents alike run through `execute`, after
 * authentication, the access rules, validation and the cost limits. An operation the compiler does not
 * cover, or a request whose arguments it leaves to the resolvers (an invalid filter, say, whose error
 * the resolvers word and place), simply continues to the resolvers: they remain the reference, and
 * the compiled answer must equal theirs (test/integration/compile/).
 */
import { getOperationAST, Kind, locatedError, type DocumentNode, type ExecutionResult, type OperationDefinitionNode, type TypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import { stringify } from '../compile/json-text.ts';
import { coerceVariables, compileOperation, type CompiledOperation, type Variables } from '../compile/operation.ts';
import { readModels, type Models } from '../compile/model.ts';
import { FALLBACK_REASONS, NotCompiled, type FallbackReason } from '../compile/statement.ts';
import { findAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { createErrorMasker } from './mask-error.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { TransportContext } from './yoga.ts';

/** An operation's compiled form for each combination of the variables its @skip/@include read, or why there is none. */
type PlanCache = WeakMap<DocumentNode, Map<string, CompiledOperation | NotCompiled>>;

/**
 * Every query operation is counted once: served compiled (`compiled_reads_total`) or left to the
 * resolvers (`compiled_reads_fallback_total{reason}`, and a debug line with the request id and why).
 */
export function useCompiledReads(logger: Logger, registry: Registry): Plugin<GraphQLContext & TransportContext> {
  const plans: PlanCache = new WeakMap();
  // A result set here skips the pipeline's own masking: errors are masked (and logged) as it would.
  const maskError = createErrorMasker(logger);
  const compiledReads = new Counter({ name: 'compiled_reads_total', help: 'Query operations served by compiled SQL', registers: [registry] });
  const fallbacks = new Counter({
    name: 'compiled_reads_fallback_total',
    help: 'Query operations served by the resolvers instead of compiled SQL, by reason (docs/compiled-reads.md)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of FALLBACK_REASONS) fallbacks.inc({ reason }, 0);
  const fallBack = (context: GraphQLContext, reason: FallbackReason, detail: string): void => {
    fallbacks.inc({ reason });
    logger.debug({ requestId: context.requestId, reason, detail }, 'read served by the resolvers');
  };
  let models: Models | undefined;

  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext;
      const operation = getOperationAST(args.document, args.operationName);
      // Only queries are compiled (compileOperation relies on it); writes are not reads to count.
      if (!operation || operation.operation !== 'query') return;
      let variables: Variables;
      let compiled: CompiledOperation | NotCompiled;
      try {
        variables = coerceVariables(args.schema, operation, (args.variableValues ?? {}) as Variables);
        models ??= readModels();
        compiled = planFor(plans, args.document, operation, variables, () =>
          compileOperation(args.schema, args.document, operation, variables, models!),
        );
      } catch (error) {
        if (error instanceof NotCompiled) return fallBack(context, error.reason, error.message);
        throw error;
      }
      if (compiled instanceof NotCompiled) return fallBack(context, compiled.reason, compiled.message);
      try {
        // Yoga serializes a result with its own `stringify`: the records' JSON goes out as PostgreSQL wrote it.
        setResultAndStopExecution({ data: await compiled.read(context, variables), stringify } as ExecutionResult);
        compiledReads.inc();
      } catch (error) {
        // The resolvers raise the same input errors, with their paths; a compiler gap is theirs to serve.
        if (error instanceof NotCompiled) return fallBack(context, error.reason, error.message);
        const appError = findAppError(error);
        if (appError) return fallBack(context, 'invalid_arguments', appError.message);
        compiledReads.inc();
        setResultAndStopExecution({ data: null, errors: [maskError(locatedError(error, operation.selectionSet.selections[0] ?? []))] });
      }
    },
  };
}

function planFor(
  plans: PlanCache,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Variables,
  compile: () => CompiledOperation,
): CompiledOperation | NotCompiled {
  let byKey = plans.get(document);
  if (!byKey) plans.set(document, (byKey = new Map()));
  const key = `${operation.name?.value ?? ''}${directiveVariables(operation, variables)}`;
  let plan = byKey.get(key);
  if (plan) return plan;
  try {
    plan = compile();
  } catch (error) {
    if (!(error instanceof NotCompiled)) throw error;
    plan = error;
  }
  byKey.set(key, plan);
  return plan;
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
