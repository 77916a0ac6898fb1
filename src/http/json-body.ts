/**
 * JSON request bodies, the same for /api and /graphql (docs/read-api.md, "Body limits"): read once by
 * express's parser (1 MiB at most after decompression), then their shape is bounded before anything
 * recurses over them (the NUL check, zod, graphql-js, the database client): at most
 * BODY_LIMITS.maxDepth levels of arrays and objects and BODY_LIMITS.maxValues values in all, and no
 * `__proto__` key, which JavaScript cannot hold as data. The walk is iterative, so a body nested
 * 10,000 levels costs one loop, not the stack. Free-form fields (an ecosystem's `tabs_config`) go
 * through the same walk with tighter limits and the checks that make them stored exactly as sent.
 * Errors of the body reader (size, charset, Content-Encoding, bytes that do not decompress) become
 * the error envelope here too, never a 500.
 */
import express, { type Request, type RequestHandler } from 'express';
import { AppError, validationError, type ErrorDetail } from '../errors.ts';
import { findJsonProblem, type JsonLimits } from '../values/json-shape.ts';

// Transports read the shape check from here too (src/http/graphql-post.ts).
export { findJsonProblem };

/** Bytes of a body, after decompression (express's notation). */
export const BODY_LIMIT = '1mb';

/** Every JSON body of /api and /graphql. */
export const BODY_LIMITS: Readonly<JsonLimits> = Object.freeze({ maxDepth: 64, maxValues: 100_000 });

/** The first problem of `value` as a detail whose path starts at `path` (`body`), or undefined. */
function checkJsonShape(value: unknown, path: string, limits: JsonLimits): ErrorDetail | undefined {
  const problem = findJsonProblem(value, limits);
  return problem && { path: [path, ...problem.at].join('.'), message: problem.message };
}

/** Refuses a parsed body beyond BODY_LIMITS before the next handler sees it. */
const boundBodyShape: RequestHandler = (req, _res, next) => {
  if (req.body === undefined) {
    next();
    return;
  }
  const problem = checkJsonShape(req.body, 'body', BODY_LIMITS);
  next(problem ? validationError([problem]) : undefined);
};

/**
 * Reads a JSON body (1 MiB, gzip, deflate or br) and bounds its shape. `strict: false` takes any JSON
 * value at the top (REST turns a bad one into a body error); GraphQL requests are objects.
 */
export function jsonBody(options: { strict?: boolean } = {}): RequestHandler[] {
  return [express.json({ limit: BODY_LIMIT, strict: options.strict ?? true }), boundBodyShape];
}

const CONTENT_ENCODINGS = 'gzip, deflate, br or identity';

/**
 * The AppError for a failure of express's body reader (express.json, express.raw), or undefined when
 * `error` is not one. A client's bytes are never a 500: what cannot be read is its 400 (413 when too
 * large).
 */
export function bodyReadError(error: unknown, req: Request): AppError | undefined {
  if (typeof error !== 'object' || error === null || error instanceof AppError) return undefined;
  const { type, status, code } = error as { type?: unknown; status?: unknown; code?: unknown };
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${BODY_LIMIT}`);
  if (type === 'entity.parse.failed') return notJson();
  if (type === 'encoding.unsupported') {
    return validationError([{ path: 'header.content-encoding', message: `must be ${CONTENT_ENCODINGS}` }]);
  }
  if (type === 'charset.unsupported') {
    return validationError([{ path: 'header.content-type', message: 'the charset must be utf-8' }]);
  }
  // Bytes that do not decompress (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_1, ...), an aborted or short
  // body: body-parser marks them 400.
  if (status === 400) {
    const encoding = req.get('content-encoding');
    const zlib = typeof code === 'string' && /^(Z_|ERR_(BROTLI|ZLIB|_ERROR))/.test(code);
    return zlib && encoding ? validationError([{ path: 'body', message: `could not be decompressed as Content-Encoding: ${encoding}` }]) : unreadable();
  }
  return undefined;
}

/** A body that is not JSON (or, for GraphQL, not a JSON object or array). */
export const notJson = (): AppError =>
  new AppError('VALIDATION_ERROR', 'The request body is not valid JSON', { details: [{ path: 'body', message: 'must be valid JSON' }] });

/** An aborted or short body. */
export const unreadable = (): AppError => validationError([{ path: 'body', message: 'could not be read in full' }]);
