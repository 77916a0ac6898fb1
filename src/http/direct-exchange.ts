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
  const request = Object.assign(req, { baseUrl: '', originalUrl: req.url, ...fields, get: (name: string) => header(req, name) }) as unknown as Request;
  const response = Object.assign(res, { locals: {} }) as unknown as Response;
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

/** express's `req.get`: Referer and Referrer are one header. */
function header(req: IncomingMessage, name: string): string | undefined {
  const lower = name.toLowerCase();
  const value = req.headers[lower === 'referrer' ? 'referer' : lower];
  return Array.isArray(value) ? value.join(', ') : value;
}
