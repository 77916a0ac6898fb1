/**
 * Telling "the database cannot answer now" from a bug: a refused or dropped connection, no free
 * connection within DATABASE_CONNECT_TIMEOUT_MS, a statement cancelled by DATABASE_STATEMENT_TIMEOUT_MS
 * or by an operator's shutdown. Those are 503 SERVICE_UNAVAILABLE with Retry-After (docs/operations.md);
 * anything else stays a 500. The errors arrive from pg directly or wrapped by Prisma's adapter, so the
 * whole cause chain is searched.
 */
import { AppError } from '../errors.ts';

const UNAVAILABLE_CODES = new Set([
  // Node's socket errors.
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN',
  // PostgreSQL: query_canceled (statement_timeout), admin/crash shutdown, cannot connect now, connection exceptions.
  '57014', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006',
  // Prisma: can't reach the server, timed out, closed the connection, pool timeout.
  'P1001', 'P1002', 'P1017', 'P2024',
]);

const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Can't reach database server|connection (?:is )?(?:closed|refused)|Client has encountered a connection error/i;

/**
 * The database is there but busy: a statement cancelled (a timeout, or its client left), or an interactive
 * transaction that found no session within Prisma's maxWait (P2028; the embedded database restarting its
 * thread after a statement timeout holds its one session for longer than that on a loaded machine).
 */
const isBusy = ({ code, originalCode, message }: Record<string, unknown>): boolean =>
  code === '57014' ||
  originalCode === '57014' ||
  (code === 'P2028' && typeof message === 'string' && message.includes('Unable to start a transaction in the given time'));

/** Prisma's driver adapter errors name the failure in `cause.kind`. */
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

export function isDatabaseUnavailable(error: unknown): boolean {
  return someCause(error, (fields) => {
    const { code, kind, message, originalCode } = fields;
    return (
      (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) ||
      (typeof originalCode === 'string' && UNAVAILABLE_CODES.has(originalCode)) ||
      (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind)) ||
      (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) ||
      isBusy(fields)
    );
  });
}

/**
 * The database could not be reached or dropped the connection: unavailable for another reason than
 * being busy (a cancelled statement, a transaction that could not start in time), which another server
 * would not change.
 */
export function isConnectionFailure(error: unknown): boolean {
  return isDatabaseUnavailable(error) && !someCause(error, isBusy);
}

/**
 * A statement cancelled by `pg_cancel_backend`: ours when its client left before the answer
 * (src/db/postgres.ts), or an operator's. Still a 503 (for a client still there), but not an outage to
 * warn about; a statement timeout says "statement timeout" instead.
 */
export function isCancelledOnRequest(error: unknown): boolean {
  return someCause(error, (fields) =>
    fields instanceof ClientLeftBeforeStatement ||
    (fields.code === '57014' && typeof fields.message === 'string' && fields.message.includes('due to user request')));
}

/**
 * A read whose client left while it waited for a free connection: it is never sent. Sent, it would hold
 * that connection until the statement timeout for nobody (a statement queued behind abandoned ones
 * cannot be cancelled, as it has no session yet when its client leaves).
 */
export class ClientLeftBeforeStatement extends Error {
  /** query_canceled, as for a statement cancelled on request: a 503 for nobody, logged as a cancel. */
  readonly code = '57014';
  constructor() {
    super('statement not sent: its client left while it waited for a connection');
  }
}

function someCause(error: unknown, test: (fields: Record<string, unknown>) => boolean): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current); ) {
    seen.add(current);
    if (test(current as Record<string, unknown>)) return true;
    // Prisma's client keeps its driver adapter's error in `meta.driverAdapterError` (a raw query, an
    // interactive transaction), not as its cause.
    const { cause, originalError, meta } = current as { cause?: unknown; originalError?: unknown; meta?: { driverAdapterError?: unknown } };
    current = cause ?? originalError ?? meta?.driverAdapterError;
  }
  return false;
}

export const RETRY_AFTER_SECONDS = 5;

export function databaseUnavailable(cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The database cannot answer right now; try again shortly', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    cause,
  });
}
