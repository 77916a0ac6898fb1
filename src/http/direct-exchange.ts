/**
 * What the direct paths (src/http/direct-rest.ts, src/http/graphql-post.ts) share: a node:http exchange
 * given what the app's middlewares and handlers read of express's request and response, and no more,
 * then the app's request id and the middlewares every request passes (metrics, usage counting, access
 * log, compression when the client accepts it) run on it, in their order, before it is served.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { requestId, requestIdOf } from './request-id.ts';

export interface DirectRequest {
  path: string;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * `ownHead`: the caller writes the whole head itself, the X-Request-Id header first (as the request
 * id middleware would have set it), in one `writeHead`; headers set before would make node merge them.
 */
export function serveDirectly(
  req: IncomingMessage,
  res: ServerResponse,
  fields: DirectRequest,
  middlewares: readonly RequestHandler[],
  serve: (request: Request, response: Response) => void,
  { ownHead = false }: { ownHead?: boolean } = {},
): void {
  const request = req as unknown as Request;
  request.baseUrl = '';
  request.originalUrl = req.url ?? '';
  (request as { path: string }).path = fields.path;
  request.query = fields.query as Request['query'];
  request.body = fields.body;
  request.get = header as Request['get'];
  const response = res as unknown as Response;
  response.locals = {};
  // Each calls next before it returns (they only observe or wrap the response).
  const pass = () => {
    for (const middleware of middlewares) middleware(request, response, noop);
    serve(request, response);
  };
  if (!ownHead) {
    requestId(request, response, pass);
    return;
  }
  response.locals.requestId = requestIdOf(req);
  pass();
}

const noop = () => undefined;

/** express's `req.get`, one function for every request: Referer and Referrer are one header. */
function header(this: IncomingMessage, name: string): string | undefined {
  const lower = name.toLowerCase();
  const value = this.headers[lower === 'referrer' ? 'referer' : lower];
  return Array.isArray(value) ? value.join(', ') : value;
}
