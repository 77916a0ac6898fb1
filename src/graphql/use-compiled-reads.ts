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
import { stringify } from '../compile/json-text.ts';
import { coerceVariables, compileOperation, type CompiledOperation, type Variables } from '../compile/operation.ts';
import { readModels, type Models } from '../compile/model.ts';
import { NotCompiled } from '../compile/statement.ts';
import { findAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { createErrorMasker } from './mask-error.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { TransportContext } from './yoga.ts';

/** An operation's compiled form for each combination of the variables its @skip/@include read; null: not compiled. */
type PlanCache = WeakMap<DocumentNode, Map<string, CompiledOperation | null>>;

export function useCompiledReads(logger: Logger): Plugin<GraphQLContext & TransportContext> {
  const plans: PlanCache = new WeakMap();
  // A result set here skips the pipeline's own masking: errors are masked (and logged) as it would.
  const maskError = createErrorMasker(logger);
  let models: Models | undefined;

  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext;
      const operation = getOperationAST(args.document, args.operationName);
      // Only queries are compiled (compileOperation relies on it).
      if (!operation || operation.operation !== 'query') return;
      let variables: Variables;
      let compiled: CompiledOperation | null;
      try {
        variables = coerceVariables(args.schema, operation, (args.variableValues ?? {}) as Variables);
        models ??= readModels(context.prisma);
        compiled = planFor(plans, args.document, operation, variables, () =>
          compileOperation(args.schema, args.document, operation, variables, models!),
        );
      } catch (error) {
        if (error instanceof NotCompiled) return;
        throw error;
      }
      if (!compiled) return;
      try {
        // Yoga serializes a result with its own `stringify`: the records' JSON goes out as PostgreSQL wrote it.
        setResultAndStopExecution({ data: await compiled.read(context, variables), stringify } as ExecutionResult);
      } catch (error) {
        // The resolvers raise the same input errors, with their paths; a compiler gap is theirs to serve.
        if (error instanceof NotCompiled || findAppError(error)) return;
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
): CompiledOperation | null {
  let byKey = plans.get(document);
  if (!byKey) plans.set(document, (byKey = new Map()));
  const key = `${operation.name?.value ?? ''}${directiveVariables(operation, variables)}`;
  if (byKey.has(key)) return byKey.get(key)!;
  let compiled: CompiledOperation | null;
  try {
    compiled = compile();
  } catch (error) {
    if (!(error instanceof NotCompiled)) throw error;
    compiled = null;
  }
  byKey.set(key, compiled);
  return compiled;
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
