/**
 * The follower that turns changes into webhook events: each change of the feed, as the feed shows it,
 * becomes a `<type>.<kind>` event in the outbox, in the transaction that moves the follower. The event
 * id is the change's id, so `webhook-id` names the change and a receiver can match it with the feed.
 *
 * A webhook hears the changes committed after its creation (`webhooks.from_position`, the head when it
 * was created). So the follower reads only changes some live webhook can hear: of a type one subscribes
 * to, committed after that webhook's creation; the rest (an import no webhook was there for, types
 * nobody hears) is passed over in the same statement, without delaying the changes of the present.
 */
import type { GraphQLSchema } from 'graphql';
import type { SqlTransaction } from '../db/client.ts';
import { afterPlaceSql, endOf, isBefore, type FeedPlace } from './cursor.ts';
import { apiChange, type StoredChange } from './feed.ts';
import { countTypes, type Follower, type FollowerBatch } from './follower.ts';
import { enqueueEvents } from './outbox.ts';

/**
 * In one snapshot: the head, and the next changes after the place ($1, $2, $3) that a live webhook
 * hears (its type, committed after the webhook's creation), `limit` ($4) at most. A webhook created
 * concurrently is either in the snapshot or created at a head at or after the snapshot's (its creating
 * transaction holds the clock's row: src/management/webhooks.ts), so what this passes over stays unheard.
 */
const HEARD_CHANGES = `
  WITH heard AS (
    SELECT t.type, min(w.from_position) AS after
      FROM webhooks w CROSS JOIN unnest(w.events) AS t(type)
     WHERE w.is_active AND w.enabled
     GROUP BY t.type
  )
  SELECT (SELECT position FROM change_clock)::text AS head,
         (SELECT json_agg(json_build_object('position', p.position::text, 'resource', p.resource, 'kind', p.kind,
                                            'object_id', p.object_id, 'changed_columns', p.changed_columns,
                                            'committed_at', p.committed_at) ORDER BY p.position, p.resource, p.object_id) FROM (
            SELECT cc.position, c.resource, c.kind, c.object_id, c.changed_columns, cc.committed_at
              FROM change_commits cc JOIN changes c ON c.xid = cc.xid AND ${afterPlaceSql('$1::bigint', '$2::text', '$3::int')}
             WHERE cc.position >= greatest($1::bigint, (SELECT min(after) + 1 FROM heard))
               AND EXISTS (SELECT 1 FROM heard h WHERE h.type = c.resource || '.' || c.kind AND cc.position > h.after)
             ORDER BY cc.position, c.resource, c.object_id
             LIMIT $4) p) AS changes`;

async function readHeard(tx: SqlTransaction, place: FeedPlace, batchSize: number): Promise<FollowerBatch> {
  const [row] = await tx.query<{ head: string; changes: StoredChange[] | null }>(HEARD_CHANGES, [
    String(place.position),
    place.resource,
    place.objectId,
    batchSize,
  ]);
  const changes = row?.changes ?? [];
  const head = endOf(BigInt(row!.head));
  // A short batch read every heard change up to the head of its snapshot: the place moves there.
  if (changes.length < batchSize && isBefore(place, head)) return { changes, head: row!.head, next: head };
  return { changes, head: row!.head };
}

export function webhookEventFollower(schema: GraphQLSchema): Follower {
  return {
    name: 'webhook-events',
    read: readHeard,
    handle: async (tx, changes) => {
      if (changes.length === 0) return {};
      const events = changes.map((stored) => {
        const change = apiChange(schema, stored);
        return {
          id: `msg_${change.id}`,
          type: change.type,
          occurredAt: change.occurred_at,
          position: stored.position,
          data: { ...change, occurred_at: change.occurred_at.toISOString() },
        };
      });
      await enqueueEvents(tx, events);
      return countTypes(events.map((event) => event.type));
    },
  };
}
