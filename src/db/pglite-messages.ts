/**
 * The wire-protocol side of the embedded database's thread (src/db/pglite-remote.ts): which messages
 * cross to the thread together, and PostgreSQL's errors for what happens to the thread.
 */
import { messages, protocol } from '@electric-sql/pglite';

// The first byte of each frontend message: its type.
export const [PARSE, BIND, DESCRIBE, EXECUTE, QUERY, SYNC, PORTAL] = [...'PBDEQSP'].map((letter) => letter.charCodeAt(0));
const SYNC_MESSAGE = protocol.serialize.sync();
const ROLLBACK_MESSAGE = protocol.serialize.query('ROLLBACK');

const concat = (parts: Uint8Array[]): Uint8Array => {
  if (parts.length === 1) return parts[0]!;
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
};

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, index) => byte === b[index]);

/**
 * PGlite's base class sends a query as six messages, awaiting each (Parse, Describe, Bind, Describe,
 * Execute, Sync): six crossings of the thread boundary. Only two answers are needed before the next
 * message can be written: the statement's parameter types (Describe of the statement) and the rows
 * (Execute). So Parse, Bind and a portal's Describe are held and sent with the next message that needs
 * an answer; Execute and a simple Query take their Sync with them, and the Sync the base class sends
 * after them is answered here. An error in a held message arrives with the batch, which the base class
 * handles as it would have the message's own: it throws, then sends Sync. 2 crossings a query, 1 an exec.
 */
export class MessageBatch {
  #held: Uint8Array[] = [];
  #syncSent = false;

  /** What to send to the thread for `message`; undefined when it is answered here, with nothing. */
  add(message: Uint8Array): Uint8Array | undefined {
    const type = message[0];
    if (type === SYNC && this.#syncSent) {
      this.#syncSent = false;
      return undefined;
    }
    if (type === PARSE || type === BIND || (type === DESCRIBE && message[5] === PORTAL)) {
      this.#held.push(message);
      return undefined;
    }
    const withSync = type === EXECUTE || type === QUERY;
    const batch = concat([...this.#held, message, ...(withSync ? [SYNC_MESSAGE] : [])]);
    this.#held = [];
    this.#syncSent = withSync;
    return batch;
  }

  /** The session these messages were for is gone. */
  clear(): void {
    this.#held = [];
    this.#syncSent = false;
  }
}

/** What a session that is gone can still be told: Sync and ROLLBACK, answered with nothing. */
export const endsLostSession = (message: Uint8Array): boolean => message[0] === SYNC || sameBytes(message, ROLLBACK_MESSAGE);

/** PostgreSQL's own error for it, so every layer above treats it as it treats PostgreSQL's. */
function postgresError(code: string, text: string): Error {
  const error = new messages.DatabaseError(text, 0, 'error');
  error.code = code;
  error.severity = 'ERROR';
  return error;
}

export const timedOut = (): Error => postgresError('57014', 'canceling statement due to statement timeout');
export const threadLost = (why: string): Error => postgresError('08006', `the embedded database's thread stopped: ${why}`);
export const cannotOpen = (why: string): Error => postgresError('57P03', `the embedded database could not be opened: ${why}`);
export const closedError = (): Error => postgresError('08003', 'the embedded database is closed');

/** A message sent to the thread, until it answers or its deadline passes. */
export interface Pending {
  resolve(data: Uint8Array | undefined): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/** PGlite's rule for a channel's name: as written when quoted, else lower-cased, as PostgreSQL folds it. */
export const channelName = (channel: string): string =>
  channel.startsWith('"') && channel.endsWith('"') ? channel.slice(1, -1) : channel.toLowerCase();
