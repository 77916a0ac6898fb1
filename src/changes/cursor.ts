/**
 * A place in the changes feed: the commit's position and the change's sequence number within it. A
 * change's id is the place it occupies, so `since=<a change's id>` continues right after that change.
 * The text is opaque to clients (base64url), stable, and checked when read back.
 */
import { validationError } from '../errors.ts';

export interface FeedPlace {
  position: bigint;
  seq: bigint;
}

/** After every change of a commit: the sequence numbers of its changes are all below it. */
export const END_OF_COMMIT = 9_223_372_036_854_775_807n;

const PATTERN = /^(\d{1,19})\.(\d{1,19})$/;

export function encodePlace(place: FeedPlace): string {
  return Buffer.from(`${place.position}.${place.seq}`).toString('base64url');
}

/** A cursor as a client sent it; anything that is not one of ours is 400 on `parameter`. */
export function decodePlace(text: string, parameter: string): FeedPlace {
  const match = /^[A-Za-z0-9_-]{1,60}$/.test(text) ? PATTERN.exec(Buffer.from(text, 'base64url').toString()) : null;
  const position = match ? BigInt(match[1]!) : -1n;
  const seq = match ? BigInt(match[2]!) : -1n;
  if (!match || position > END_OF_COMMIT || seq > END_OF_COMMIT) {
    throw validationError([{ path: parameter, message: 'is not a cursor of this feed (use a next_cursor or a change id as given, or `now`)' }]);
  }
  return { position, seq };
}

export const isBefore = (a: FeedPlace, b: FeedPlace): boolean =>
  a.position < b.position || (a.position === b.position && a.seq < b.seq);
