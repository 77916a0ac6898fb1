/**
 * Hands every /graphql operation to the one operation runner (src/graphql/operation-runner.ts), inside
 * yoga's own pipeline, which keeps what it is good at: reading the request's GraphQL parameters, parsing
 * and validating documents it has not seen (with graphql-armor's limits), and GraphQL over HTTP's
 * status rules when it writes the result.
 * - `onExecute`: a document yoga parsed and validated runs through the runner instead of yoga's execute;
 *   its text is remembered, since its validation depends on the text alone.
 * - `onParams`: a query document remembered that way is answered at once with the runner's result
 *   (`setResult`): its parse and validation would only say again what they said before. Authentication
 *   came first (useAuthenticateFirst, an earlier plugin), so the context is the request's.
 */
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Registry } from 'prom-client';
import type { Variables } from '../compile/operation.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { OperationRunner } from './operation-runner.ts';
import { tally } from '../tally.ts';
import type { ContextFactory, TransportContext } from './yoga.ts';

/** Documents remembered by text; all are forgotten when it fills (a client sending ever new texts). */
const KNOWN_DOCUMENTS_KEPT = 1_000;

export function useOperationRunner(runOperation: OperationRunner, createContext: ContextFactory, registry: Registry): Plugin<GraphQLContext & TransportContext> {
  const known = new Map<string, DocumentNode>();
  const answeredKnown = tally({
    name: 'graphql_known_documents_total',
    help: 'GraphQL operations answered from a document validated before, without parsing or validating it again',
    registers: [registry],
  });
  const remember = (query: unknown, document: DocumentNode) => {
    if (typeof query !== 'string' || known.get(query) === document) return;
    if (known.size >= KNOWN_DOCUMENTS_KEPT) known.clear();
    known.set(query, document);
  };
  return {
    async onParams({ params, setResult, context }) {
      const document = typeof params.query === 'string' ? known.get(params.query) : undefined;
      const variables = params.variables ?? {};
      if (!document || !isPlainObject(variables)) return;
      const operation = getOperationAST(document, params.operationName);
      if (operation?.operation !== 'query') return;
      const transport = context as unknown as TransportContext;
      // A pure introspection query without a token goes the long way, where it is recognised as public.
      if (transport.publicIntrospection) return;
      const pending = createContext(transport);
      const graphqlContext = pending instanceof Promise ? await pending : pending;
      answeredKnown.inc();
      transport.readOnly = true;
      setResult(await runOperation({ document, operation, operationName: params.operationName, variables: variables as Variables }, graphqlContext));
    },
    async onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      // None, or an ambiguous one: graphql-js's execute words that error.
      if (!operation) return;
      const context = args.contextValue;
      // The context yoga hands over is the transport's object, extended (envelop assigns onto it).
      context.readOnly = operation.operation === 'query';
      const variables = (args.variableValues ?? {}) as Variables;
      setResultAndStopExecution(await runOperation({ document: args.document, operation, operationName: args.operationName, variables }, context));
      // yoga's initial context carries the request's GraphQL parameters: the text this document came from.
      if (operation.operation === 'query') remember((context as { params?: { query?: unknown } }).params?.query, args.document);
    },
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
