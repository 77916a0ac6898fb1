/**
 * A /graphql request once its parameters are read (src/http/graphql-route.ts), in one order:
 *   1. the caller: authentication before the document is read, so an unauthenticated caller learns
 *      nothing from parse or validation errors (a pure introspection query needs no token:
 *      public-introspection.ts);
 *   2. the document: parsed and validated with graphql-armor's limits once per text, then known;
 *   3. GraphQL over HTTP's one rule of the operation itself: no mutation by GET;
 *   4. the one operation runner (operation-runner.ts), as REST's and MCP's operations run.
 * Every error leaves masked (mask-error.ts), its HTTP status in `extensions.http` for the route to read.
 */
import { execute, getOperationAST, GraphQLError, specifiedRules, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import type { Variables } from '../compile/operation.ts';
import { tally } from '../tally.ts';
import { documentError, type ErrorMasker } from './mask-error.ts';
import type { OperationRunner } from './operation-runner.ts';
import { isPureIntrospectionQuery } from './public-introspection.ts';
import type { ContextFactory, TransportContext } from './transport.ts';
import { ARMOR_RULES, parseWithinLimits } from './use-armor.ts';

/** A request's GraphQL parameters, as GraphQL over HTTP reads them from a GET's query or a POST's body. */
export interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown> | null | undefined;
  operationName?: string | null | undefined;
}

export type GraphQLRequestHandler = (params: GraphQLParams, transport: TransportContext, method: 'GET' | 'POST') => Promise<ExecutionResult>;

export interface GraphQLRequestOptions {
  schema: GraphQLSchema;
  createContext: ContextFactory;
  runOperation: OperationRunner;
  maskError: ErrorMasker;
  registry: Registry;
}

/** Documents remembered by text; all are forgotten when it fills (a client sending ever new texts). */
const KNOWN_DOCUMENTS_KEPT = 1_000;

const RULES = [...specifiedRules, ...ARMOR_RULES];

export function createGraphQLRequestHandler(options: GraphQLRequestOptions): GraphQLRequestHandler {
  const { schema, maskError } = options;
  const known = new Map<string, DocumentNode>();
  const answeredKnown = tally({
    name: 'graphql_known_documents_total',
    help: 'GraphQL operations answered from a document validated before, without parsing or validating it again',
    registers: [options.registry],
  });

  /** The document, or why it is refused; its validation depends on the text alone, so a valid one is kept. */
  const documentOf = (query: string): DocumentNode | readonly GraphQLError[] => {
    const remembered = known.get(query);
    if (remembered) {
      answeredKnown.inc();
      return remembered;
    }
    let document: DocumentNode;
    try {
      document = parseWithinLimits(query);
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      throw error;
    }
    const errors = validate(schema, document, RULES);
    if (errors.length) return errors;
    if (known.size >= KNOWN_DOCUMENTS_KEPT) known.clear();
    known.set(query, document);
    return document;
  };

  const handle = async (params: GraphQLParams, transport: TransportContext, method: 'GET' | 'POST'): Promise<ExecutionResult> => {
    if (isPureIntrospectionQuery(params.query)) transport.publicIntrospection = true;
    const context = await options.createContext(transport);
    const document = documentOf(params.query);
    if (!('kind' in document)) return { errors: document.map(documentError) };
    const { operationName } = params;
    const operation = getOperationAST(document, operationName);
    if (!operation) {
      // None, or an ambiguous one: graphql-js's execute words that error, running nothing.
      const refused = (await execute({ schema, document, operationName })) as ExecutionResult;
      return { errors: refused.errors?.map((error) => maskError(error, transport.requestId)) };
    }
    if (operation.operation === 'mutation' && method === 'GET') return { errors: [maskError(mutationByGet(), transport.requestId)] };
    transport.readOnly = operation.operation === 'query';
    return options.runOperation({ document, operation, operationName, variables: (params.variables ?? {}) as Variables }, context);
  };

  return async (params, transport, method) => {
    try {
      return await handle(params, transport, method);
    } catch (error) {
      // Authentication's refusals (401, 429, 403...) and anything unexpected, masked as every error is.
      return { errors: [maskError(error, transport.requestId)] };
    }
  };
}

/** A GET must not change anything (GraphQL over HTTP): 405, naming the method that may. */
const mutationByGet = (): GraphQLError =>
  new GraphQLError('Can only perform a mutation operation from a POST request.', { extensions: { http: { status: 405, headers: { Allow: 'POST' } } } });
