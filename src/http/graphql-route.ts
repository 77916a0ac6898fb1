/**
 * `/graphql` on the pipeline, by GraphQL over HTTP's rules: GraphiQL's page for a browser's GET; else
 * the body step (a JSON object, within the body limits), the media type the client reads, the GraphQL
 * parameters (read by graphql-http, the spec's reference implementation), then the request's GraphQL
 * part (src/graphql/graphql-request.ts), whose result is written with the status its errors mean.
 * A request refused before GraphQL reads it (a body that is not JSON, too large, holding a NUL
 * character) is answered the same way: a GraphQL response, never the REST envelope.
 */
import accepts from 'accepts';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { parseRequestParams } from 'graphql-http';
import { stringify } from '../compile/json-text.ts';
import { AppError, toGraphQLError } from '../errors.ts';
import type { GraphiQLSite } from '../graphql/graphiql-page.ts';
import type { GraphQLParams, GraphQLRequestHandler } from '../graphql/graphql-request.ts';
import type { HttpExtension } from '../graphql/mask-error.ts';
import type { TransportContext } from '../graphql/transport.ts';
import type { Exchange } from './exchange.ts';
import type { Route } from './front.ts';
import { bodyReader } from './read-body.ts';
import { respond, type Answer } from './respond.ts';

type MediaType = 'application/json' | 'application/graphql-response+json';
/** What a client may read, in the order chosen when it accepts both equally (`*\/*`, no Accept): the older first. */
const MEDIA_TYPES: MediaType[] = ['application/json', 'application/graphql-response+json'];
/** A 406's `Accept`: what the client could have asked for, the current type first. */
const ACCEPTABLE = 'application/graphql-response+json; charset=utf-8, application/json; charset=utf-8';
const PARAMETERS = new Set(['query', 'variables', 'operationName', 'extensions']);

export function graphqlRoute(handle: GraphQLRequestHandler, graphiql: GraphiQLSite | undefined): Route {
  const readBody = bodyReader({ strict: true, what: 'A GraphQL request', jsonOnly: (exchange) => exchange.method === 'POST', refuseNul: true });
  const serve = async (exchange: Exchange): Promise<void> => {
    const { method } = exchange;
    if (graphiql && method === 'GET' && exchange.header('accept')?.includes('text/html')) {
      respond(exchange, { status: 200, body: graphiql.page, contentType: 'text/html; charset=utf-8' });
      return;
    }
    if (method !== 'GET' && method !== 'POST') throw new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed on /graphql`, { headers: { Allow: 'GET, POST' } });
    await readBody(exchange);
    const mediaType = mediaTypeOf(exchange);
    if (!mediaType) {
      respond(exchange, { status: 406, headers: { Accept: ACCEPTABLE } });
      return;
    }
    const params = await paramsOf(exchange);
    const transport = transportOf(exchange);
    const result = await handle(params, transport, method);
    respond(exchange, { ...answerOf(result, mediaType), read: transport.readOnly === true });
  };
  return {
    serve: (exchange) => {
      // Usage names GraphQL by method and path, like a REST route template (docs/usage.md).
      exchange.endpoint = `${exchange.method} /graphql`;
      return serve(exchange);
    },
    refusal: (exchange, error) => answerOf({ errors: [toGraphQLError(error)] }, mediaTypeOf(exchange) || 'application/json'),
  };
}

const mediaTypeOf = (exchange: Exchange): MediaType | false => accepts(exchange.req).type(MEDIA_TYPES) as MediaType | false;

/** The parameters, or the client's error (400 for either media type: the request is not well-formed). */
async function paramsOf(exchange: Exchange): Promise<GraphQLParams> {
  const badRequest = (message: string) => new AppError('VALIDATION_ERROR', message);
  // graphql-http reads an array's missing `query` as any object's.
  if (Array.isArray(exchange.body)) throw badRequest('The request body must be one JSON object: batches of operations are not supported');
  let params: Awaited<ReturnType<typeof parseRequestParams>>;
  try {
    params = await parseRequestParams({
      method: exchange.method,
      url: exchange.req.url ?? '/graphql',
      headers: { get: (name) => exchange.header(name) ?? null },
      body: (exchange.body as Record<string, unknown> | undefined) ?? null,
      raw: exchange,
      context: undefined,
    });
  } catch (error) {
    throw badRequest(error instanceof Error ? error.message : String(error));
  }
  // The method and the body's type were checked before: what is left is a charset other than UTF-8's name.
  if (Array.isArray(params)) throw badRequest('A GraphQL request body must be application/json in UTF-8 (charset=utf-8)');
  const unknown = exchange.method === 'POST' && Object.keys(exchange.body as object).find((name) => !PARAMETERS.has(name));
  if (unknown) throw badRequest(`Unexpected parameter "${unknown}" in the request body`);
  return params as GraphQLParams;
}

/** What the GraphQL side reads of the HTTP request: a small object of its own. */
function transportOf(exchange: Exchange): TransportContext {
  return {
    requestId: exchange.requestId,
    header: (name) => exchange.header(name),
    responseHeaders: exchange.responseHeaders,
    onIdentified: (principal) => exchange.onIdentified(principal),
    signal: exchange.signal,
    authentication: undefined,
  };
}

/**
 * A result as GraphQL over HTTP answers it: the highest status its errors mean (200 without any, and
 * for field errors, which carry none), except that a document's errors are 200 to a client reading
 * only `application/json`; the headers they carry (`Allow`, `WWW-Authenticate`, `Retry-After`).
 */
function answerOf(result: ExecutionResult, mediaType: MediaType): Answer {
  let status: number | undefined;
  const headers: Record<string, string> = {};
  for (const error of result.errors ?? []) {
    const http = error.extensions.http as HttpExtension | undefined;
    if (!http) continue;
    Object.assign(headers, http.headers);
    if (http.spec && mediaType === 'application/json') continue;
    if (http.status && (status === undefined || http.status > status)) status = http.status;
  }
  const body = result.errors ? { ...result, errors: result.errors.map(forClient) } : result;
  return { status: status ?? 200, headers, body: stringify(body), contentType: `${mediaType}; charset=utf-8` };
}

/** An error as JSON, without what is for the server only (`extensions.http`). */
function forClient(error: GraphQLError): object {
  const { extensions, ...rest } = error.toJSON();
  const { http: _http, ...shown } = extensions ?? {};
  return Object.keys(shown).length ? { ...rest, extensions: shown } : rest;
}
