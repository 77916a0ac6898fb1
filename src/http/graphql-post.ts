/**
 * A POST of /graphql read from node:http. express's router and body parser cost a tenth of a small
 * compiled read, so a POST of JSON is read here (as src/http/direct-rest.ts serves /api's GETs): the body
 * is read and parsed, then bounded and checked as the express chain checks it. When its document is one
 * the pipeline has already served compiled (src/graphql/direct-graphql.ts), the request gets its request
 * id and passes the app's middlewares (the very ones: metrics, usage, access log, compression), and is
 * served here, or by yoga with the same transport when a check of the direct path refuses it. Anything else goes to express with the body already read
 * (body-parser leaves a finished request alone): a body the checks refuse is refused there, in its words,
 * and a body that could not be read or parsed is raised there as the body reader's error
 * (`raiseBodyFailure`). Compressed bodies (Content-Encoding), CORS, other media types and bodies over
 * 1 MiB never come here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { findNul, type AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { DirectGraphQL } from '../graphql/direct-graphql.ts';
import type { TransportContext } from '../graphql/yoga.ts';
import { BODY_LIMITS, findJsonProblem, notJson, unreadable } from './json-body.ts';
import { serveDirectly } from './direct-exchange.ts';

export interface GraphQLPostOptions {
  direct: DirectGraphQL;
  /** The app's middlewares every request passes (metrics, usage counting, access log, compression), in their order. */
  middlewares: RequestHandler[];
  /** CORS_ORIGINS set: every request goes through express, which owns that policy. */
  cors: boolean;
  /** The transport of a /graphql request, as the express chain makes it. */
  transport(req: Request, res: Response): TransportContext;
  /** yoga, for a request the direct path leaves. */
  handle(req: Request, res: Response, transport: TransportContext): Promise<void>;
  /** express, with the body read. */
  next(req: IncomingMessage, res: ServerResponse): void;
  /** Told of each request served here (a metric). */
  onServed(): void;
  logger: Logger;
}

/** The bytes of a body read here; larger ones are left to express's reader and its 413. */
const MOST_BYTES = 1024 * 1024;
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
const BODY_FAILURE = Symbol('a failure of reading the body');

type ReadRequest = IncomingMessage & { body?: unknown; [BODY_FAILURE]?: AppError };

/** Returns false, touching nothing, for a request express must serve from its first byte. */
export function graphqlPost(options: GraphQLPostOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const headers = req.headers;
    const length = Number(headers['content-length']);
    if (
      options.cors ||
      req.method !== 'POST' ||
      req.url !== '/graphql' ||
      !JSON_TYPES.has(headers['content-type'] ?? '') ||
      headers['content-encoding'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      !(length > 0 && length <= MOST_BYTES)
    ) {
      return false;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', () => options.next(failed(req, unreadable()), res));
    req.once('end', () => {
      if (!req.complete) return options.next(failed(req, unreadable()), res);
      const body = parseObject(Buffer.concat(chunks).toString('utf8'));
      if (body === undefined) return options.next(failed(req, notJson()), res);
      // Where express's chain reads it, should the request go on to it.
      (req as ReadRequest).body = body;
      const known = !findJsonProblem(body, BODY_LIMITS) && !findNul(body, 'body') ? options.direct.known({ accept: headers.accept, body }) : undefined;
      if (!known) return options.next(req, res);

      options.onServed();
      serveDirectly(req, res, { path: '/graphql', query: {}, body }, options.middlewares, (request, response) => {
        // Usage names GraphQL by method and path, like a REST route template (docs/usage.md).
        response.locals.endpoint = 'POST /graphql';
        const transport = options.transport(request, response);
        options.direct
          .serve(known, res, transport)
          .then((served) => (served ? undefined : options.handle(request, response, transport)))
          .catch((error: unknown) => {
            // Both answer every error themselves; this is a bug, and the connection is all that is left.
            options.logger.error({ err: error, requestId: response.locals.requestId }, 'unhandled error in a /graphql request');
            res.destroy(error instanceof Error ? error : new Error(String(error)));
          });
      });
    });
    return true;
  };
}

/** express's first handler of /graphql: raises what this front could not read, as the body reader would have. */
export const raiseBodyFailure: RequestHandler = (req, _res, next) => next((req as ReadRequest)[BODY_FAILURE]);

function failed(req: IncomingMessage, error: AppError): IncomingMessage {
  (req as ReadRequest)[BODY_FAILURE] = error;
  return req;
}

/** A JSON object or array, as express.json's strict mode takes it; undefined for anything else. */
function parseObject(text: string): unknown {
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

