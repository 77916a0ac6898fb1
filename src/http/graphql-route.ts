/**
 * `/graphql` on the pipeline: the body step (a JSON object or array, within the body limits), then yoga,
 * which reads the GraphQL parameters, serves GraphiQL, parses and validates, runs the operation through
 * the one runner (src/graphql/use-operation-runner.ts) and words the result by GraphQL over HTTP's
 * rules; its Response is written by the one writer. A request refused before GraphQL reads it (a body
 * that is not JSON, too large, holding a NUL character) is answered as a GraphQL response, never in the
 * REST envelope, in the media type the client accepts, with the code's status.
 */
import accepts from 'accepts';
import type { AppError } from '../errors.ts';
import type { GraphQLServer, TransportContext } from '../graphql/yoga.ts';
import type { Exchange } from './exchange.ts';
import type { Route } from './front.ts';
import { bodyReader } from './read-body.ts';
import { respond, type Answer } from './respond.ts';

const MEDIA_TYPES = ['application/json', 'application/graphql-response+json'];
/** What the writer sets itself from the body it writes. */
const WRITER_HEADERS = new Set(['content-length', 'content-type', 'content-encoding']);

export function graphqlRoute(yoga: GraphQLServer): Route {
  const readBody = bodyReader({ strict: true, what: 'A GraphQL request', jsonOnly: (exchange) => exchange.method === 'POST', refuseNul: true });
  const serve = async (exchange: Exchange): Promise<void> => {
    await readBody(exchange);
    const transport = transportOf(exchange);
    const response = await yoga.handleNodeRequest(exchange.req, transport);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      // The fetch API's Headers keep names in lower case; yoga's ponyfill may keep them as set.
      if (!WRITER_HEADERS.has(name.toLowerCase())) headers[name] = value;
    });
    const body = await response.text();
    respond(exchange, {
      status: response.status,
      headers,
      body: body === '' ? undefined : body,
      contentType: response.headers.get('content-type') ?? undefined,
      read: transport.readOnly === true,
    });
  };
  return {
    serve: (exchange) => {
      // Usage names GraphQL by method and path, like a REST route template (docs/usage.md).
      exchange.endpoint = `${exchange.method} /graphql`;
      return serve(exchange);
    },
    refusal: graphqlError,
  };
}

/** What yoga and the context factory read of the HTTP request: a small object of its own (yoga extends it). */
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

function graphqlError(exchange: Exchange, error: AppError): Answer {
  const mediaType = accepts(exchange.req).type(MEDIA_TYPES) || MEDIA_TYPES[0]!;
  const extensions = { code: error.code, ...(error.details ? { details: error.details } : {}) };
  return {
    status: error.status,
    headers: error.headers,
    body: JSON.stringify({ errors: [{ message: error.message, extensions }] }),
    contentType: `${mediaType}; charset=utf-8`,
  };
}
