/**
 * The follower that turns changes into webhook events: each change of the feed, as the feed shows it,
 * becomes a `<type>.<kind>` event in the outbox, in the transaction that moves the follower. The event
 * id is the change's id, so `webhook-id` names the change and a receiver can match it with the feed.
 */
import type { GraphQLSchema } from 'graphql';
import { apiChange } from './feed.ts';
import type { Follower } from './follower.ts';
import { enqueueEvents, heardEventTypes } from './outbox.ts';

export function webhookEventFollower(schema: GraphQLSchema): Follower {
  return {
    name: 'webhook-events',
    handle: async (tx, changes) => {
      if (changes.length === 0) return;
      const heard = await heardEventTypes(tx);
      const events = changes
        .filter((stored) => heard.has(`${stored.resource}.${stored.kind}`))
        .map((stored) => {
          const change = apiChange(schema, stored);
          return { id: `msg_${change.id}`, type: change.type, occurredAt: change.occurred_at, data: { ...change, occurred_at: change.occurred_at.toISOString() } };
        });
      await enqueueEvents(tx, events);
    },
  };
}
