/**
 * The head of the changes feed held still: a transaction that must be placed exactly in commit order
 * without being a commit of its own (a webhook's creation, an ecosystem's) reads the head with its row
 * share-locked until it ends. A writer's commit takes that row exclusively for its moment (the
 * numbering at COMMIT, migration 20261124100000_changes), so no change commits in between: what the
 * transaction writes stands exactly at the head it read, after every commit up to it and before every
 * later one. Several such transactions share the row; none waits for another.
 */
import type { SqlTransaction } from '../db/client.ts';

export async function holdFeedHead(tx: SqlTransaction): Promise<bigint> {
  const [clock] = await tx.query<{ position: string }>('SELECT position::text FROM change_clock FOR SHARE');
  return BigInt(clock!.position);
}
