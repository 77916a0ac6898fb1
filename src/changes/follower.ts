/**
 * The service's own followers of the changes feed (ecosystem membership, webhook events). A follower's
 * place is a row of change_followers; a pass locks that row (SKIP LOCKED: with several instances one of
 * them works, the others move on), reads the next batch after it, lets the follower act on it and moves
 * the place, all in one transaction: a batch is acted on once, or not at all and again later.
 */
import type { SqlClient, SqlTransaction } from '../db/client.ts';
import { FEED_STATEMENT, type StoredChange } from './feed.ts';
import { CHANGE_RESOURCE_NAMES } from './resources.ts';

export interface Follower {
  /** Its row in change_followers (the migration that introduces a follower inserts it). */
  name: string;
  /** Acts on the next changes (possibly none) inside the transaction that moves the follower's place. */
  handle(tx: SqlTransaction, changes: readonly StoredChange[]): Promise<void>;
}

export interface PassResult {
  /** False when another instance holds the follower. */
  ran: boolean;
  changes: number;
}

interface FeedRow {
  changes: StoredChange[] | null;
}

export async function runPass(sql: SqlClient, follower: Follower, batchSize: number): Promise<PassResult> {
  return sql.transaction(async (tx) => {
    const [place] = await tx.query<{ position: string; resource: string; object_id: number }>(
      'SELECT position::text, resource, object_id FROM change_followers WHERE name = $1 FOR UPDATE SKIP LOCKED',
      [follower.name],
    );
    if (!place) return { ran: false, changes: 0 };
    const [row] = await tx.query<FeedRow>(FEED_STATEMENT, [place.position, place.resource, place.object_id, CHANGE_RESOURCE_NAMES, batchSize]);
    const changes = row?.changes ?? [];
    await follower.handle(tx, changes);
    const last = changes.at(-1);
    if (last) {
      await tx.query('UPDATE change_followers SET position = $2, resource = $3, object_id = $4, updated_at = now() WHERE name = $1', [
        follower.name,
        last.position,
        last.resource,
        last.object_id,
      ]);
    }
    return { ran: true, changes: changes.length };
  });
}
