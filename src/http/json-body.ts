/**
 * JSON request bodies, the same for /api, /graphql and /mcp (docs/read-api.md, "Body limits"): read once
 * by body-parser (src/http/read-body.ts; 1 MiB at most after decompression), then their shape is bounded
 * before anything recurses over them (the NUL check, zod, graphql-js, the database client): at most
 * BODY_LIMITS.maxDepth levels of arrays and objects and BODY_LIMITS.maxValues values in all, and no
 * `__proto__` key, which JavaScript cannot hold as data (src/values/json-shape.ts). Errors of the body
 * reader (size, charset, Content-Encoding, bytes that do not decompress) become the error envelope here
 * too, never a 500.
 */
import { AppError, validationError } from '../errors.ts';
import type { JsonLimits } from '../values/json-shape.ts';

/** Bytes a body may hold, after decompression, and as sent (src/http/read-body.ts, `refuseDeclaredLength`). */
export const BODY_LIMIT = 1_048_576;

/** Every JSON body of /api, /graphql and /mcp. */
export const BODY_LIMITS: Readonly<JsonLimits> = Object.freeze({ maxDepth: 64, maxValues: 100_000 });

const CONTENT_ENCODINGS = 'gzip, deflate, br or identity';

/**
 * The AppError for a failure of the body reader (body-parser's json and raw), or undefined when
 * `error` is not one. A client's bytes are never a 500: what cannot be read is its 400 (413 when too
 * large).
 */
export function bodyReadError(error: unknown, request: { header(name: string): string | undefined }): AppError | undefined {
  if (typeof error !== 'object' || error === null || error instanceof AppError) return undefined;
  const { type, status, code } = error as { type?: unknown; status?: unknown; code?: unknown };
  if (type === 'entity.too.large') return tooLarge();
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
    const encoding = request.header('content-encoding');
    const zlib = typeof code === 'string' && /^(Z_|ERR_(BROTLI|ZLIB|_ERROR))/.test(code);
    return zlib && encoding ? validationError([{ path: 'body', message: `could not be decompressed as Content-Encoding: ${encoding}` }]) : unreadable();
  }
  return undefined;
}

export const tooLarge = (): AppError => new AppError('PAYLOAD_TOO_LARGE', 'The request body exceeds 1 MiB');

/** A body that is not JSON (or, for GraphQL, not a JSON object or array). */
export const notJson = (): AppError =>
  new AppError('VALIDATION_ERROR', 'The request body is not valid JSON', { details: [{ path: 'body', message: 'must be valid JSON' }] });

/** An aborted or short body. */
export const unreadable = (): AppError => validationError([{ path: 'body', message: 'could not be read in full' }]);
