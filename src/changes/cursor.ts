/**
 * A place in the changes feed: the commit's position, then the change's resource and record id (the
 * order of the changes of one commit). A change's id is the place it occupies, so `since=<a change's
 * id>` continues right after that change. The text is opaque to clients (base64url), stable, and
 * checked when read back.
 */
import { validationError } from '../errors.ts';
import { isChangeResource } from './resources.ts';

export interface FeedPlace {
  position: bigint;
  resource: string;
  objectId: number;
}

/** Sorts after every resource name (they are lowercase letters): the end of a commit. */
const END = '~';

/** After every change of commit `position`. */
export const endOf = (position: bigint): FeedPlace => ({ position, resource: END, objectId: 0 });

const PATTERN = /^(\d{1,19})\.([a-z]{1,20}|~)\.(\d{1,10})$/;

export function encodePlace(place: FeedPlace): string {
  return Buffer.from(`${place.position}.${place.resource}.${place.objectId}`).toString('base64url');
}

/** A cursor as a client sent it; anything that is not one of ours is 400 on `parameter`. */
export function decodePlace(text: string, parameter: string): FeedPlace {
  const match = /^[A-Za-z0-9_-]{1,80}$/.test(text) ? PATTERN.exec(Buffer.from(text, 'base64url').toString()) : null;
  const place = match ? { position: BigInt(match[1]!), resource: match[2]!, objectId: Number(match[3]) } : undefined;
  // A place names a resource of the feed, or the end of a commit (`~`, no record): anything else was never handed out.
  const known = place && (place.resource === END ? place.objectId === 0 : isChangeResource(place.resource));
  if (!place || !known || place.position > 9_223_372_036_854_775_807n || place.objectId > 2_147_483_647) throw notACursor(parameter);
  return place;
}

/** 400 on `parameter`: the text is no place this feed handed out. */
export const notACursor = (parameter: string) =>
  validationError([{ path: parameter, message: 'is not a cursor of this feed (use a next_cursor or a change id as given, or `now`)' }]);

/** Byte order of the resource names, as the database compares them (COLLATE "C"). */
export function isBefore(a: FeedPlace, b: FeedPlace): boolean {
  if (a.position !== b.position) return a.position < b.position;
  if (a.resource !== b.resource) return a.resource < b.resource;
  return a.objectId < b.objectId;
}
