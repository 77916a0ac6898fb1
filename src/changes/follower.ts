/**
 * The service's own followers of the changes feed (ecosystem membership, webhook events). A follower's
 * place is a row of change_followers; a pass locks that row (SKIP LOCKED: with several instances one of
 * them works, the others move on), reads the next batch after it, lets the follower act on it and moves
 * the place, all in one transaction: a batch is acted on once, or not at all and again later.
 *
 * A follower may read its batch itself, to pass over changes it has no use for without reading them
 * one by one (webhook events: what no webhook can hear; membership: a backlog it recomputes whole), so
 * a backlog nobody needs never delays the changes of the present.
 */
import type { SqlClient, SqlTransaction } from '../db/client.ts';
import { isBefore, type FeedPlace } from './cursor.ts';
import { FEED_STATEMENT, type StoredChange } from './feed.ts';
import { CHANGE_RESOURCE_NAMES } from './resources.ts';

export interface FollowerBatch {
  /** The changes to act on, in feed order. */
  changes: readonly StoredChange[];
  /** The feed's head (a commit position) in the snapshot the batch was read in. */
  head: string;
  /** Where the place moves once the batch is handled; undefined: to the last change (or stays). */
  next?: FeedPlace;
  /** The changes up to `next` were passed over unread: act as if anything may have changed. */
  everything?: boolean;
}

/** Events a pass emitted, by type (`/metrics`: change_follower_events_total). */
export type EventCounts = Readonly<Record<string, number>>;

export interface Follower {
  /** Its row in change_followers (the migration that introduces a follower inserts it). */
  name: string;
  /**
   * The pass reads one snapshot (REPEATABLE READ), so the present it computes from is the state at the
   * head it read. A row another transaction changed since the snapshot then refuses the pass's write
   * (a serialization failure): the pass is rolled back and runs again at the next tick.
   */
  oneSnapshot?: boolean;
  /** Reads the batch after `place`; by default the next `batchSize` changes of every resource. */
  read?(tx: SqlTransaction, place: FeedPlace, batchSize: number): Promise<FollowerBatch>;
  /** Acts on the batch inside the transaction that moves the follower's place; returns the events it emitted. */
  handle(tx: SqlTransaction, changes: readonly StoredChange[], batch: FollowerBatch): Promise<EventCounts>;
}

export interface PassResult {
  /** False when another instance holds the follower (or, in one snapshot, changed what the pass would write). */
  ran: boolean;
  changes: number;
  /** The batch was full: another follows at once. */
  full: boolean;
  /** The events the pass emitted (committed with it). */
  emitted: EventCounts;
}

interface FeedRow {
  head: string;
  changes: StoredChange[] | null;
}

export const countTypes = (types: readonly string[]): EventCounts => {
  const counts: Record<string, number> = {};
  for (const type of types) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
};

/** The next `batchSize` changes after `place`, of the resources given (by default the feed's own). */
export async function readNext(tx: SqlTransaction, place: FeedPlace, batchSize: number, resources: readonly string[] = CHANGE_RESOURCE_NAMES): Promise<FollowerBatch> {
  const [row] = await tx.query<FeedRow>(FEED_STATEMENT, [String(place.position), place.resource, place.objectId, resources, batchSize]);
  return { changes: row?.changes ?? [], head: row!.head };
}

const NOT_RUN: PassResult = { ran: false, changes: 0, full: false, emitted: {} };

/** PostgreSQL's `could not serialize access`: in one snapshot, a row changed since by another transaction. */
const isSerializationFailure = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === '40001';

export async function runPass(sql: SqlClient, follower: Follower, batchSize: number): Promise<PassResult> {
  try {
    return await sql.transaction(async (tx) => {
      if (follower.oneSnapshot) await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      const [row] = await tx.query<{ position: string; resource: string; object_id: number }>(
        'SELECT position::text, resource, object_id FROM change_followers WHERE name = $1 FOR UPDATE SKIP LOCKED',
        [follower.name],
      );
      if (!row) return NOT_RUN;
      const place: FeedPlace = { position: BigInt(row.position), resource: row.resource, objectId: row.object_id };
      const batch = await (follower.read ?? readNext)(tx, place, batchSize);
      const emitted = await follower.handle(tx, batch.changes, batch);
      const last = batch.changes.at(-1);
      const next = batch.next ?? (last ? { position: BigInt(last.position), resource: last.resource, objectId: last.object_id } : undefined);
      // A place never goes back (a batch passed over by a jump is not read again).
      if (next && isBefore(place, next)) {
        await tx.query('UPDATE change_followers SET position = $2, resource = $3, object_id = $4, updated_at = now() WHERE name = $1', [
          follower.name,
          String(next.position),
          next.resource,
          next.objectId,
        ]);
      }
      return { ran: true, changes: batch.changes.length, full: batch.changes.length >= batchSize, emitted };
    });
  } catch (error) {
    if (follower.oneSnapshot && isSerializationFailure(error)) return NOT_RUN;
    throw error;
  }
}
