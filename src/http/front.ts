/**
 * The request pipeline: every request passes these steps, each written once, in this order:
 *   0. its form (HTTP/1.1's request-target forms and one Host: src/http/request-form.ts);
 *   1. the exchange: request id (the client's X-Request-Id when it looks like one), start time;
 *   2. at its end (also when the client leaves first): metrics, usage counting, the access log;
 *   3. CORS, when CORS_ORIGINS is set (a preflight is answered here);
 *   4. the route, chosen by path at start-up's table: /api (REST), /graphql, /mcp and /oauth/token
 *      read their body if they take one, authenticate, check and run their operation through the one
 *      runner, and hand their answer to the one writer (src/http/respond.ts: ETag, 304, compression);
 *   5. anything else (the docs page, GraphiQL's assets, discovery documents, health, metrics, `/`) is
 *      express's, which serves pages and files (src/http/site.ts).
 * A route's failure is answered here once: its AppError in its words (the envelope, or GraphQL's), the
 * database's unavailability as 503, anything else logged and masked as 500; after the head went out,
 * only logged (the route cut the transfer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { databaseUnavailable, isCancelledOnRequest, isDatabaseUnavailable } from '../db/unavailable.ts';
import { findAppError, internalError, isAppError, type AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { CompressedAnswers } from './compressed-answers.ts';
import { Exchange } from './exchange.ts';
import { settleRequestForm } from './request-form.ts';
import { errorAnswer, respond, type Answer } from './respond.ts';
import type { Serving } from './serving.ts';

export interface Route {
  serve(exchange: Exchange): Promise<void>;
  /** How the route words a refusal (the contract's envelope unless given). */
  refusal?(exchange: Exchange, error: AppError): Answer;
}

/** What every request is told at its end, in order. */
export type EndStep = (exchange: Exchange) => void;

/** A step before the route; false when it answered the request itself (a CORS preflight). */
export type Step = (exchange: Exchange) => boolean;

export interface FrontOptions {
  atEnd: readonly (EndStep | undefined)[];
  before: readonly (Step | undefined)[];
  /** Routes by exact path, and by prefix for `/api/`. */
  routes: { api: Route; exact: Readonly<Record<string, Route>> };
  /** Everything that is not the API. */
  site(req: IncomingMessage, res: ServerResponse, exchange: Exchange): void;
  /** Where the writer keeps the compressed forms of read answers. */
  compressedAnswers?: CompressedAnswers | undefined;
  /** Counts the requests in flight (background work waits for them: src/http/serving.ts). */
  serving?: Serving;
  logger: Logger;
}

export function createFront(options: FrontOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const atEnd = options.atEnd.filter((step): step is EndStep => step !== undefined);
  const before = options.before.filter((step): step is Step => step !== undefined);
  const routes = new Map(Object.entries(options.routes.exact));
  const routeOf = (path: string): Route | undefined =>
    path.startsWith('/api/') || path === '/api' ? options.routes.api : routes.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
  const failed = (exchange: Exchange, route: Route, error: unknown): void => {
    const answer = answerTo(exchange, error, options.logger);
    if (!answer) return;
    respond(exchange, route.refusal?.(exchange, answer) ?? errorAnswer(answer));
  };

  return (req, res) => {
    // Before the exchange reads the target: an absolute-form one becomes a path (src/http/request-form.ts).
    const form = settleRequestForm(req);
    const exchange = new Exchange(req, res, options.compressedAnswers);
    options.serving?.started();
    // 'close' comes once per response, also when the client leaves first.
    res.on('close', () => {
      options.serving?.ended();
      exchange.closed();
      for (const step of atEnd) step(exchange);
    });
    if (form) return void respond(exchange, isAppError(form) ? errorAnswer(form) : form);
    for (const step of before) if (!step(exchange)) return;
    const route = routeOf(exchange.path);
    if (!route) {
      options.site(req, res, exchange);
      return;
    }
    route.serve(exchange).catch((error: unknown) => failed(exchange, route, error));
  };
}

/** The AppError to answer a failure with, or undefined when the head is gone (then it is only logged). */
function answerTo(exchange: Exchange, error: unknown, logger: Logger): AppError | undefined {
  const context = { err: error, requestId: exchange.requestId, path: exchange.path };
  if (exchange.res.headersSent) {
    logger.error(context, 'error after the response was sent');
    return undefined;
  }
  const appError = findAppError(error);
  if (appError) return appError;
  if (isDatabaseUnavailable(error)) {
    if (isCancelledOnRequest(error)) logger.info({ path: exchange.path }, 'statement cancelled on request: its client left before the answer, or an operator cancelled it');
    else logger.warn(context, 'database unavailable');
    return databaseUnavailable();
  }
  logger.error(context, 'unhandled error');
  return internalError();
}
