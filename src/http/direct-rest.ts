/**
 * A GET of /api/* that needs nothing of express's own is served straight from node:http: the same
 * request id, metrics, usage counting, access log and compression (the very middlewares, run here),
 * the same REST handler (authentication, rate limit, permissions, the prepared read), and the response
 * written as express's `res.send` writes it (headers in the same order, weak ETag, Content-Length), in
 * one write (compressed or not, as the middleware decides). What express's router, request and response
 * setup and body parser would add costs about a tenth of a small read. Anything else goes to express: a
 * body, CORS, conditional requests (If-None-Match, If-Modified-Since, which `res.send` answers with 304),
 * CSV (`format=`, or an Accept header other than JSON's), other methods.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Request, RequestHandler, Response } from 'express';
import { stringify } from '../compile/json-text.ts';
import type { RestHandler, RestResponse } from '../rest/handler.ts';
import { toRestRequest } from '../rest/express.ts';
import { serveDirectly } from './direct-exchange.ts';

export interface DirectRestOptions {
  handle: RestHandler;
  /** The app's middlewares every request passes (metrics, usage counting, access log, compression), in their order. */
  middlewares: RequestHandler[];
  /** CORS_ORIGINS set: every request goes through express, which owns that policy. */
  cors: boolean;
  /** Told of each request served here (a metric). */
  onServed(): void;
  /** The app's `etag` setting: the ETag express's `res.send` gives the body. */
  etag: (body: string | Buffer, encoding?: BufferEncoding) => string | undefined;
}

/** Accept headers that mean JSON to `wantsCsv` (src/rest/csv-export.ts) without asking content negotiation. */
const JSON_ACCEPT = new Set(['*/*', 'application/json']);

/** Returns false, touching nothing, for a request express must serve. */
export function directRest(options: DirectRestOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '';
    const headers = req.headers;
    if (
      options.cors ||
      req.method !== 'GET' ||
      !url.startsWith('/api/') ||
      headers['if-none-match'] !== undefined ||
      headers['if-modified-since'] !== undefined ||
      (headers['content-length'] !== undefined && headers['content-length'] !== '0') ||
      headers['transfer-encoding'] !== undefined ||
      (headers.accept !== undefined && !JSON_ACCEPT.has(headers.accept))
    ) {
      return false;
    }
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    // Paths express's router would read otherwise (empty segments, a fragment) are left to it.
    if (path.includes('//') || path.includes('#')) return false;
    const query = queryAt === -1 ? {} : { ...parseQuery(url.slice(queryAt + 1)) };
    if (query.format !== undefined) return false;

    options.onServed();
    serveDirectly(req, res, { path, query, body: undefined }, options.middlewares, (request, response) => {
      options.handle(toRestRequest(request, response)).then(
        (answer) => send(res, response.locals.requestId as string, answer, options.etag),
        (error: unknown) => {
          // The handler answers every error itself; this is a bug, and the connection is all that is left.
          res.destroy(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }, { ownHead: true });
    return true;
  };
}

/**
 * src/rest/express.ts `sendResponse`, as the request id middleware, express's `res.status().set()`,
 * `res.type()` and `res.send()` write it, in their order; the head in one `writeHead`, which validates
 * each header once and keeps no header map of the response.
 */
function send(res: ServerResponse, requestId: string, [body, init]: RestResponse, etag: DirectRestOptions['etag']): void {
  const head: string[] = ['X-Request-Id', requestId];
  for (const name in init.headers) head.push(name, String(init.headers[name]));
  if (init.status === 204 || body === undefined) {
    res.writeHead(init.status, head).end();
    return;
  }
  // Written as the string it is: node encodes it into the socket's buffer, with no Buffer of our own.
  const text = stringify(body);
  head.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text, 'utf8')));
  const tag = etag(text, 'utf8');
  if (tag) head.push('ETag', tag);
  res.writeHead(init.status, head).end(text, 'utf8');
}
