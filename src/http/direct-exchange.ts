/**
 * What the direct paths (src/http/direct-rest.ts, src/http/graphql-post.ts) share: a node:http exchange
 * given what the app's middlewares and handlers read of express's request and response, and no more,
 * then the app's request id and observing middlewares (metrics, usage counting, access log) run on it,
 * in their order, before it is served.
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
export function serveObserved(
  req: IncomingMessage,
  res: ServerResponse,
  fields: DirectRequest,
  observers: readonly RequestHandler[],
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
  const observe = () => {
    for (const observer of observers) observer(request, response, noop);
    serve(request, response);
  };
  if (!ownHead) {
    requestId(request, response, observe);
    return;
  }
  response.locals.requestId = requestIdOf(req);
  observe();
}

const noop = () => undefined;

/** express's `req.get`, one function for every request: Referer and Referrer are one header. */
function header(this: IncomingMessage, name: string): string | undefined {
  const lower = name.toLowerCase();
  const value = this.headers[lower === 'referrer' ? 'referer' : lower];
  return Array.isArray(value) ? value.join(', ') : value;
}
