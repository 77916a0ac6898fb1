/**
 * One error type for the whole service. Every failure a client can see is an AppError with a code from
 * the closed ErrorCode union; STATUS_BY_CODE is the only place a code becomes an HTTP status.
 * GraphQL renders it as `extensions: {code, http: {status}}`, REST as the `{error: {...}}` envelope.
 */
import { GraphQLError } from 'graphql';

export const STATUS_BY_CODE = {
  VALIDATION_ERROR: 400,
  FILTER_PARSE_ERROR: 400,
  UNKNOWN_FILTER: 400,
  UNSUPPORTED_OPERATOR: 400,
  FILTER_VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  CURSOR_EXPIRED: 410,
  EXPORT_EXPIRED: 410,
  RANGE_NOT_SATISFIABLE: 416,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export const ERROR_CODES = Object.keys(STATUS_BY_CODE) as ErrorCode[];

/** One problem with one input, e.g. `{path: 'query.limit', message: 'must be at most 500'}`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Extra response headers, e.g. `Retry-After`, `Allow`, `WWW-Authenticate`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details?.length ? options.details : undefined;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export const notFound = (what: string): AppError => new AppError('NOT_FOUND', `${what} not found`);

export const validationError = (details: ErrorDetail[]): AppError =>
  new AppError(
    'VALIDATION_ERROR',
    details.length === 1 ? `${details[0]!.path}: ${details[0]!.message}` : 'The request has invalid parameters',
    { details },
  );

/**
 * `error` with its details' paths renamed (a list's `query.fields` as an export's `input.fields`); a
 * message that was its one detail's `path: message` names the new path, so the two never disagree.
 */
export function relocated(error: AppError, rename: (path: string) => string): AppError {
  if (!error.details) return error;
  const details = error.details.map((detail) => ({ ...detail, path: rename(detail.path) }));
  const only = error.details.length === 1 ? error.details[0]! : undefined;
  const message = only && error.message === `${only.path}: ${only.message}` ? `${details[0]!.path}: ${only.message}` : error.message;
  return new AppError(error.code, message, { details, headers: error.headers, cause: error.cause });
}

export const internalError = (cause?: unknown): AppError =>
  new AppError('INTERNAL_ERROR', 'An unexpected error occurred', { cause });

/** The REST error envelope body. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

export function toErrorEnvelope(error: AppError): ErrorEnvelope {
  const body: ErrorEnvelope['error'] = { code: error.code, message: error.message };
  if (error.details) body.details = error.details;
  return { error: body };
}

/**
 * The GraphQL form of an AppError: the code (and details) travel in `extensions`. Given the located
 * error graphql-js raised in a field (`at`), it keeps that field's `path` and `locations` and is a
 * field error: the response is still 200 with the other fields' data (GraphQL over HTTP), so it sets
 * no HTTP status. Without one it is a request error (authentication, permissions, limits) and
 * `extensions.http` gives the response the code's status and headers.
 */
export function toGraphQLError(error: AppError, at?: GraphQLError): GraphQLError {
  const field = at?.path !== undefined;
  return new GraphQLError(error.message, {
    originalError: error,
    ...(at ? { nodes: at.nodes, source: at.source, positions: at.positions, path: at.path } : {}),
    extensions: {
      code: error.code,
      ...(field ? {} : { http: { status: error.status, headers: error.headers } }),
      ...(error.details ? { details: error.details } : {}),
    },
  });
}

/** Finds the AppError inside whatever GraphQL or a library wrapped around it. */
export function findAppError(error: unknown): AppError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth += 1) {
    if (current instanceof AppError) return current;
    if (current instanceof GraphQLError && current.originalError) current = current.originalError;
    else if (current instanceof Error && current.cause) current = current.cause;
    else return undefined;
  }
  return undefined;
}

/** PostgreSQL text cannot hold a NUL character, and no field of this API needs one. */
export const NUL_MESSAGE = 'must not contain a NUL character';

/** The path of the first string holding a NUL character in a parsed JSON value (`body.name`), if any. */
export function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNul(item, `${path}.${index}`);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = key.includes('\u0000') ? `${path}.${key}` : findNul(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}
