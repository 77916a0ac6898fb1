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

/**
 * SQL: the change `c` of commit `cc` comes after the place ($`position`, $`resource`, $`objectId`,
 * SQL expressions), `cc` being the place's commit or a later one. Written as one range of the changes'
 * key (xid, resource, object_id), a commit's changes from the place on, where `cc.position > p OR
 * (resource, object_id) > (r, o)` let the index bound nothing: a follower at the end of an import's
 * commit re-read its 40,000 changes on every pass, and for webhook events the planner scanned all
 * 5,000,000 changes, 280 ms of two cores a pass. A null `position` (the feed's oldest) takes every change.
 */
export function afterPlaceSql(position: string, resource: string, objectId: string): string {
  const later = `(${position} IS NULL OR cc.position > ${position})`;
  return `(c.resource, c.object_id) > (CASE WHEN ${later} THEN '' ELSE ${resource} END COLLATE "C", CASE WHEN ${later} THEN -1 ELSE ${objectId} END)`;
}
