/**
 * The REST core, after graphql-http: a pure function from a RestRequest to `[body, init]`. It finds the
 * route (404, or 405 with Allow), turns the request into variables, runs the prepared operation and
 * wraps the result. It never touches express.
 */
import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLFormattedError, type OperationDefinitionNode } from 'graphql';
import {
  AppError,
  findAppError,
  findNul,
  internalError,
  NUL_MESSAGE,
  STATUS_BY_CODE,
  toErrorEnvelope,
  validationError,
  type ErrorCode,
} from '../errors.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../db/unavailable.ts';
import type { OperationRunner, PreparedOperation } from '../graphql/operation-runner.ts';
import type { CompiledReads } from '../graphql/use-compiled-reads.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { parseFieldSelection } from './envelope.ts';
import { recordFieldNames, type PreparedOperations } from './operations.ts';
import type { IntegerBounds, RestRequest } from './request.ts';
import type { Route } from './routes.ts';
import type { MaybePromise } from '../maybe-promise.ts';

export interface ResponseInit {
  status: number;
  headers: Record<string, string>;
}

export type RestResponse = [body: unknown, init: ResponseInit];

interface CompiledRoute {
  route: Route;
  /** `GET /api/entities/{id}`: what metrics and usage call the route. */
  endpoint: string;
  pattern: RegExp;
  paramNames: string[];
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fields: string[];
  /** Its plans made at start-up (compiled reads on, a query), and whether its access rules read variables. */
  prepared: PreparedOperation;
  /** The ranges of its integer query parameters, for the messages that refuse them. */
  bounds: IntegerBounds | undefined;
}

function compilePath(path: string): { pattern: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      paramNames.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), paramNames };
}

export interface RestHandlerOptions {
  routes: readonly Route[];
  operations: PreparedOperations;
  /** The request's GraphQL context: authentication (400, 401, 429 as AppError), charged to the rate limit once. */
  authenticate(request: RestRequest): Promise<GraphQLContext>;
  /** The one operation runner (src/graphql/operation-runner.ts). */
  runOperation: OperationRunner;
  /**
   * Throws FORBIDDEN when the caller may not run the operation: called before parameters are read (the
   * contract's order of checks); the runner checks again with the variables when the rules read them.
   */
  authorize?(document: DocumentNode, context: GraphQLContext): void;
  rulesReadVariables?(document: DocumentNode): boolean;
  /**
   * The ranges of a route's integer query parameters (`GET /api/search` → limit 1 to 50), as the
   * OpenAPI document states them: a parameter past its range is refused with it.
   */
  queryBounds?(endpoint: string): IntegerBounds | undefined;
  /** Compiled reads (COMPILED_READS): read routes are then planned at start-up. */
  compiledReads?: Pick<CompiledReads, 'prepare'> | undefined;
  onUnexpectedError(error: unknown, request: RestRequest): void;
}

export type RestHandler = ((request: RestRequest) => Promise<RestResponse>) & {
  /** The record fields of the route a request matches, in record order (what `fields=` picks from). */
  recordFields(request: Pick<RestRequest, 'method' | 'path'>): readonly string[];
  /**
   * Authenticates `request` (400, 401, 429 as AppError) and keeps its run for the requests served as
   * its passes (`passOf`), before any of them is known: /mcp answers a refused token in HTTP, not as a tool's error.
   */
  begin(request: RestRequest): Promise<GraphQLContext>;
};

export function createRestHandler(options: RestHandlerOptions): RestHandler {
  const compiled: CompiledRoute[] = options.routes.map((route) => {
    const document = options.operations.get(route.operation);
    if (!document) throw new Error(`Route ${route.id} names unknown operation ${route.operation}`);
    return {
      route,
      endpoint: `${route.method} ${route.path}`,
      bounds: options.queryBounds?.(`${route.method} ${route.path}`),
      ...compilePath(route.path),
      document,
      operation: getOperationAST(document)!,
      fields: recordFieldNames(document),
      prepared: { read: options.compiledReads?.prepare(document), rulesReadVariables: options.rulesReadVariables?.(document) ?? true },
    };
  });

  // A request the handler serves in several passes (an MCP tool call runs one per REST read) is
  // authenticated, charged to the rate limit and given its context once, in `begin`; its passes reuse
  // that run. Only begun requests are kept: a WeakMap entry per request kept everything the request
  // touched alive until the next full collection (docs/compiled-reads.md).
  const runs = new WeakMap<RestRequest, GraphQLContext>();
  // The headers gathered on the request (RateLimit-*, Deprecation) go onto the answer where it is
  // written (src/http/respond.ts), under its own.
  const handle = (request: RestRequest): Promise<RestResponse> =>
    dispatch(compiled, options, runs, request).catch((error: unknown) => failure(options, request, error));
  const recordFields = (request: Pick<RestRequest, 'method' | 'path'>): readonly string[] =>
    compiled.find((candidate) => candidate.route.method === request.method && candidate.pattern.test(request.path))?.fields ?? [];
  const begin = async (request: RestRequest): Promise<GraphQLContext> => {
    const context = await options.authenticate(request);
    runs.set(request, context);
    return context;
  };
  return Object.assign(handle, { recordFields, begin });
}

/** The context of a pass of a begun request, else one of its own (authenticated, charged to the rate limit). */
function contextOf(options: RestHandlerOptions, runs: WeakMap<RestRequest, GraphQLContext>, request: RestRequest): MaybePromise<GraphQLContext> {
  return runs.get(request.passOf ?? request) ?? options.authenticate(request);
}

/** The answer to a request whose dispatch threw: its AppError, a 503 for the database, else a 500 (logged). */
function failure(options: RestHandlerOptions, request: RestRequest, error: unknown): RestResponse {
  const appError = findAppError(error);
  if (appError) return errorResponse(appError);
  if (isDatabaseUnavailable(error)) return errorResponse(databaseUnavailable());
  options.onUnexpectedError(error, request);
  return errorResponse(internalError());
}

async function dispatch(
  compiled: CompiledRoute[],
  options: RestHandlerOptions,
  runs: WeakMap<RestRequest, GraphQLContext>,
  request: RestRequest,
): Promise<RestResponse> {
  let found: CompiledRoute | undefined;
  let match: RegExpExecArray | null = null;
  for (const candidate of compiled) {
    if (candidate.route.method !== request.method) continue;
    match = candidate.pattern.exec(request.path);
    if (match) {
      found = candidate;
      break;
    }
  }
  if (!found) {
    const allowed = new Set(compiled.filter((candidate) => candidate.pattern.test(request.path)).map((candidate) => candidate.route.method));
    if (!allowed.size) throw new AppError('NOT_FOUND', `No endpoint at ${request.path}`);
    throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${request.path}`, {
      headers: { Allow: [...allowed].join(', ') },
    });
  }

  const candidate = found;
  request.endpoint = candidate.endpoint;
  // Authentication (400, 401, 429) happens here, in the first pass only; a refusal caches nothing.
  const pending = contextOf(options, runs, request);
  const context = pending instanceof Promise ? await pending : pending;
  options.authorize?.(candidate.document, context);
  // Path parameters are parameters: read after the token and the permissions, as the query's are.
  const params: Record<string, string> = {};
  for (let index = 0; index < candidate.paramNames.length; index += 1) {
    const name = candidate.paramNames[index]!;
    params[name] = decodePathParameter(name, match![index + 1]!);
  }
  const nulAt = findNul(request.body, 'body');
  if (nulAt) throw validationError([{ path: nulAt, message: NUL_MESSAGE }]);
  const variables = candidate.route.toVariables(request, params, candidate.bounds);
  const fields = parseFieldSelection(request, candidate.fields);
  const argumentsFrom = BODY_METHODS.has(request.method) ? 'body' : 'query';
  let result: ExecutionResult;
  try {
    result = await options.runOperation({ document: candidate.document, operation: candidate.operation, variables, prepared: candidate.prepared }, context);
  } catch (error) {
    // A refusal of the permission check is what the pipeline would have returned as its error.
    const appError = findAppError(error);
    if (appError) return errorResponse(appError, argumentsFrom, candidate.route.argumentNames);
    throw error;
  }
  // A resolver names its arguments (`limit`, `entity_ids`); over REST they came from the query or the body.
  if (result.errors?.length) return errorResponse(fromGraphQLError(result.errors[0]!), argumentsFrom, candidate.route.argumentNames);
  const { status, body, headers } = candidate.route.toResult(result.data as Record<string, unknown>, fields);
  return [body, { status, headers: { ...headers } }];
}

/** A path segment as text; a malformed escape or a NUL character is the client's 400. */
function decodePathParameter(name: string, raw: string): string {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw validationError([{ path: `path.${name}`, message: 'is not a correctly percent-encoded path segment' }]);
  }
  if (value.includes('\u0000')) throw validationError([{ path: `path.${name}`, message: NUL_MESSAGE }]);
  return value;
}

/** Rebuilds the AppError a masked GraphQL error stands for; details get REST paths (`query.limit`). */
function fromGraphQLError(error: GraphQLFormattedError | Error): AppError {
  const original = findAppError(error);
  if (original) return original;
  const extensions = ('extensions' in error ? error.extensions : undefined) as
    | { code?: string; details?: { path: string; message: string }[]; http?: { headers?: Record<string, string> } }
    | undefined;
  const code = extensions?.code;
  if (code && code in STATUS_BY_CODE) {
    return new AppError(code as ErrorCode, error.message, {
      details: extensions?.details,
      headers: extensions?.http?.headers,
    });
  }
  return internalError(error);
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** `groupBy` → `group_by`: an argument path's first name as the route's parameter is called. */
function restPath(path: string, names: Readonly<Record<string, string>>): string {
  const head = /^[A-Za-z_]\w*/.exec(path)?.[0];
  if (head === undefined || !Object.hasOwn(names, head)) return path;
  // An argument that stands for the whole body (`input`) is named by nothing: `input.filter` is `body.filter`.
  return names[head] === '' ? path.slice(head.length + 1) : `${names[head]}${path.slice(head.length)}`;
}

function errorResponse(error: AppError, argumentsFrom: 'query' | 'body' = 'query', names: Readonly<Record<string, string>> = {}): RestResponse {
  const body = toErrorEnvelope(error);
  body.error.details = body.error.details?.map((detail) =>
    /^(query|path|body|header)(\.|$)/.test(detail.path) ? detail : { ...detail, path: `${argumentsFrom}.${restPath(detail.path, names)}` },
  );
  if (!body.error.details) delete body.error.details;
  return [body, { status: error.status, headers: { ...error.headers } }];
}

