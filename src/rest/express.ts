/** Binds the pure REST handler to express. The only REST file that knows express exists. */
import express, { type Request, type Response, type Router } from 'express';
import { AppError, toErrorEnvelope } from '../errors.ts';
import { stringify } from '../compile/json-text.ts';
import { clientGone } from '../http/client-gone.ts';
import { BODY_LIMIT, jsonBody } from '../http/json-body.ts';
import { sendCsvExport, wantsCsv } from './csv-export.ts';
import type { Authentication } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { CancelSignal } from '../db/client.ts';
import type { RestRequest, QueryValue } from './request.ts';
import type { RestHandler, RestResponse } from './handler.ts';
import { HeaderBag } from '../http/header-bag.ts';

export { BODY_LIMIT };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function sendResponse(res: Response, [body, init]: RestResponse): void {
  res.status(init.status).set(init.headers);
  if (init.status === 204 || body === undefined) res.end();
  // The compiled reads' records are JSON text already (src/compile/json-text.ts).
  else res.type('application/json').send(stringify(body));
}

export function sendError(res: Response, error: AppError): void {
  sendResponse(res, [toErrorEnvelope(error), { status: error.status, headers: error.headers }]);
}

/**
 * What the handler reads of an express request (src/http/direct-rest.ts builds the same from node:http).
 * A class: its accessor and methods live once on the prototype. An object literal with a getter and a
 * setter, made anew per request, kept what the request touched alive past young-generation collections
 * and promoted it to the old generation (docs/compiled-reads.md, "Garbage that outlives its request").
 */
class ExchangeRequest implements RestRequest {
  readonly method: string;
  readonly path: string;
  /** A copy: the CSV export takes `format` out and pages through cursors on it. */
  readonly query: Record<string, QueryValue>;
  readonly body: unknown;
  readonly requestId: string;
  readonly responseHeaders = new HeaderBag();
  readonly signal: CancelSignal;
  /** Made once, by the context factory (src/app.ts), for every hand the request passes through. */
  authentication: Promise<Authentication> | undefined = undefined;

  constructor(
    private readonly req: Request,
    private readonly res: Response,
  ) {
    this.method = req.method;
    this.path = req.baseUrl + req.path;
    this.query = { ...(req.query as Record<string, QueryValue>) };
    this.body = req.body;
    this.requestId = res.locals.requestId as string;
    this.signal = clientGone(res);
  }

  header(name: string): string | undefined {
    return this.req.get(name);
  }

  // Known to metrics and usage as soon as the route matches, even if the client leaves before the answer.
  get endpoint(): string | undefined {
    return this.res.locals.endpoint as string | undefined;
  }

  set endpoint(endpoint: string | undefined) {
    this.res.locals.endpoint = endpoint;
  }

  onIdentified(principal: Principal): void {
    this.res.locals.principal = principal;
  }
}

export function toRestRequest(req: Request, res: Response): RestRequest {
  return new ExchangeRequest(req, res);
}

/** `/api/*`: JSON bodies only, within the body limits (src/http/json-body.ts), then the handler. */
export function restRouter(handle: RestHandler): Router {
  const router = express.Router();
  router.use((req, res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (BODY_METHODS.has(req.method) && hasBody && !req.is('application/json')) {
      sendError(res, new AppError('VALIDATION_ERROR', 'The request body must be JSON (Content-Type: application/json)', {
        details: [{ path: 'header.content-type', message: 'must be application/json' }],
      }));
      return;
    }
    next();
  });
  router.use(...jsonBody({ strict: false }));
  router.use(async (req, res) => {
    const request = toRestRequest(req, res);
    try {
      if (wantsCsv(req, request.query)) {
        await sendCsvExport(request, res, handle, (response) => sendResponse(res, response));
        return;
      }
    } catch (error) {
      if (!(error instanceof AppError) || res.headersSent) throw error;
      sendError(res, error);
      return;
    }
    sendResponse(res, await handle(request));
  });
  return router;
}
