/**
 * The body step: a JSON body read by body-parser (1 MiB as sent and after decompression; gzip, deflate or br;
 * UTF-8), then its shape bounded before anything recurses over it (src/http/json-body.ts). Only routes
 * that take a body run it, and only when the request carries one. What cannot be read is the client's
 * 4xx in the contract's words, never a 500.
 */
import bodyParser from 'body-parser';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, findNul, NUL_MESSAGE, validationError } from '../errors.ts';
import type { Exchange } from './exchange.ts';
import { findJsonProblem } from '../values/json-shape.ts';
import { BODY_LIMIT, BODY_LIMITS, bodyReadError, tooLarge } from './json-body.ts';

type Reader = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

const isJson = (contentType: string | undefined): boolean => contentType !== undefined && /^application\/json\s*(?:;|$)/i.test(contentType);

export const hasBody = (exchange: Exchange): boolean => {
  const length = exchange.req.headers['content-length'];
  return (length !== undefined && length !== '0') || exchange.req.headers['transfer-encoding'] !== undefined;
};

/**
 * A body whose Content-Length is over the limit, refused from the header before a byte of it is read
 * (body-parser answers only once the whole body has arrived, not to cut off a client still sending).
 * The connection closes after the answer, so the rest is never read either.
 */
export function refuseDeclaredLength(exchange: Exchange): AppError | undefined {
  const length = exchange.req.headers['content-length'];
  if (length === undefined || !(Number(length) > BODY_LIMIT)) return undefined;
  exchange.responseHeaders.set('Connection', 'close');
  return tooLarge();
}

export interface BodyReader {
  /** Resolves once `exchange.body` holds the body (undefined without one); rejects with the AppError to answer. */
  (exchange: Exchange): Promise<void>;
}

/**
 * `jsonOnly`: whether the request must be JSON (a REST write that carries a body; every POST of GraphQL and MCP).
 * `strict`: only an object or array at the top (GraphQL, MCP); otherwise any JSON value (REST turns a
 * wrong one into a detail of its own). `what` names the API in the refusal of a body that is not JSON.
 */
export interface BodyOptions {
  strict: boolean;
  what: string;
  jsonOnly(exchange: Exchange): boolean;
  /** Refuse a NUL character anywhere now (no field holds one); REST leaves it until after the token. */
  refuseNul?: boolean;
}

export function bodyReader({ strict, what, jsonOnly, refuseNul = false }: BodyOptions): BodyReader {
  const parse = bodyParser.json({ limit: BODY_LIMIT, strict, type: () => true }) as Reader;
  return (exchange) => {
    const declared = refuseDeclaredLength(exchange);
    if (declared) return Promise.reject(declared);
    const carriesBody = hasBody(exchange);
    const json = isJson(exchange.header('content-type'));
    if (!json && jsonOnly(exchange)) return Promise.reject(notJsonType(what));
    // A body of another type where none is expected is left unread, as a JSON parser leaves it.
    if (!carriesBody || !json) return Promise.resolve();
    return new Promise((resolve, reject) => {
      parse(exchange.req, exchange.res, (error) => {
        if (error) {
          reject(bodyReadError(error, exchange) ?? error);
          return;
        }
        const body = (exchange.req as { body?: unknown }).body;
        const problem = body === undefined ? undefined : findJsonProblem(body, BODY_LIMITS);
        if (problem) {
          reject(validationError([{ path: ['body', ...problem.at].join('.'), message: problem.message }]));
          return;
        }
        const nulAt = refuseNul ? findNul(body, 'body') : undefined;
        if (nulAt) {
          reject(new AppError('VALIDATION_ERROR', `The request ${NUL_MESSAGE}`, { details: [{ path: nulAt, message: NUL_MESSAGE }] }));
          return;
        }
        exchange.body = body;
        resolve();
      });
    });
  };
}

const notJsonType = (what: string): AppError =>
  new AppError('VALIDATION_ERROR', `${what} body must be JSON (Content-Type: application/json)`, {
    details: [{ path: 'header.content-type', message: 'must be application/json' }],
  });
