/**
 * A /graphql request whose document the pipeline has already validated and served from compiled SQL
 * is answered again without yoga: its parse, validation and envelop hooks cost more than the read for a
 * small query. The checks the pipeline makes are made here, in its order, with the same functions:
 * authentication (before anything else, as `useAuthenticateFirst`), the fan-out limit and the access
 * rules with the variables (as `useFanOutCost` and `usePermissions`), then the compiled read. The
 * document's validation and armor limits depend on its text alone, so having passed them once it passes
 * them again.
 *
 * Whenever any of those says no (a refused token, a permission, a limit, variables or arguments the
 * resolvers must word), nothing has been answered or counted, and the request goes on to yoga, which
 * makes the same checks again and answers as always: the request's authentication is kept on its
 * transport (`authentication`), so it is neither repeated nor charged twice. A read the database failed goes on
 * to yoga with its failure, which yoga answers as its own without running the read a second time.
 */
import { getOperationAST, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ServerResponse } from 'node:http';
import { authorizeOperation } from '../auth/authorize.ts';
import type { Variables } from '../compile/operation.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { CompiledReads } from './use-compiled-reads.ts';
import type { ReadRouting } from './read-routing.ts';
import { fanOutCost } from './fan-out-cost.ts';
import type { ContextFactory, TransportContext } from './yoga.ts';

export interface DirectGraphQLOptions {
  schema: GraphQLSchema;
  compiledReads: Pick<CompiledReads, 'knownDocument' | 'readDirect'>;
  /** The context factory yoga is given: it authenticates, and its refusal is left to yoga to word. */
  createContext: ContextFactory;
  /** GRAPHQL_MAX_FAN_OUT. */
  maxFanOut: number;
  /** Where the read reads (src/graphql/read-routing.ts), with replicas configured. */
  routeReads?: ReadRouting['route'] | undefined;
}

/** Accept headers for which yoga answers `application/json` (the GraphQL-over-HTTP legacy media type). */
const JSON_ACCEPT = new Set([undefined, '*/*', 'application/json']);
const BODY_KEYS = new Set(['query', 'variables', 'operationName']);

/** A POST of /graphql, its JSON body parsed. */
export interface GraphQLPost {
  /** The Accept header. */
  accept: string | undefined;
  body: unknown;
}

/** A document the pipeline has served compiled, and the request's parameters for it. */
export interface KnownRequest {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Variables;
  operationName: string | null;
}

export interface DirectGraphQL {
  /** The request's known document, when the request is one this path may answer; nothing is read or counted. */
  known(post: GraphQLPost): KnownRequest | undefined;
  /** Resolves true when the request was answered here; false when it must go on to yoga, untouched. */
  serve(known: KnownRequest, res: ServerResponse, transport: TransportContext): Promise<boolean>;
}

export function directGraphQL(options: DirectGraphQLOptions): DirectGraphQL {
  // An operation without variables costs the same on every request: walked once.
  const fixedCosts = new WeakMap<OperationDefinitionNode, number>();
  const costOf = (document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): number => {
    if (operation.variableDefinitions?.length) return fanOutCost(options.schema, document, operation, variables);
    let cost = fixedCosts.get(operation);
    if (cost === undefined) fixedCosts.set(operation, (cost = fanOutCost(options.schema, document, operation, variables)));
    return cost;
  };
  const known = ({ accept, body }: GraphQLPost): KnownRequest | undefined => {
    if (!JSON_ACCEPT.has(accept) || !isPlainObject(body)) return undefined;
    if (!Object.keys(body).every((key) => BODY_KEYS.has(key))) return undefined;
    const { query, variables = null, operationName = null } = body;
    if (typeof query !== 'string' || (variables !== null && !isPlainObject(variables)) || (operationName !== null && typeof operationName !== 'string')) return undefined;
    const document = options.compiledReads.knownDocument(query);
    const operation = document && getOperationAST(document, operationName);
    if (!document || operation?.operation !== 'query') return undefined;
    return { document, operation, variables: (variables ?? {}) as Variables, operationName };
  };
  const serve = async ({ document, operation, variables: raw, operationName }: KnownRequest, res: ServerResponse, transport: TransportContext) => {
    let context: GraphQLContext;
    try {
      context = await options.createContext(transport);
    } catch {
      return false;
    }
    if (costOf(document, operation, raw) > options.maxFanOut) return false;
    try {
      authorizeOperation(document, context.principal, { schema: options.schema, variables: raw, operationName });
    } catch {
      return false;
    }
    if (options.routeReads) context = { ...context, ...options.routeReads(context, document, operationName) };
    const text = await options.compiledReads.readDirect(document, operation, context, raw);
    if (text === undefined) return false;
    if (typeof text !== 'string') {
      // yoga words and logs the failure as for any read, with its status and headers, and reads nothing.
      transport.compiledReadFailure = text;
      return false;
    }
    // As yoga writes a result (and useResponseHeaders adds the transport's headers after its own).
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(text, 'utf8'));
    transport.responseHeaders.forEach((value, name) => res.setHeader(name, value));
    res.end(text, 'utf8');
    return true;
  };
  return { known, serve };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
