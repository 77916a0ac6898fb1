/**
 * The webhook outbox. Producers (the change recorder, ecosystem membership) call `enqueueEvents` in
 * the transaction that writes what the events describe, so an event exists exactly when its change
 * committed; the deliverer (deliverer.ts) sends what is pending. An event id is stored once: a
 * producer that enqueues the same event again (a retry of its own work) adds nothing.
 */
import { randomUUID } from 'node:crypto';
import type { SqlTransaction } from '../db/client.ts';
import { TEST_EVENT_TYPE, type WebhookEventType } from './events.ts';

export type { WebhookEventType } from './events.ts';

export interface OutboxEvent {
  /** Stable, unique event id; becomes `webhook-id`, so a producer that enqueues the same event twice is deduplicated. */
  id: string;
  type: WebhookEventType;
  /** The body's `timestamp` (when the change committed). */
  occurredAt: Date;
  data: Record<string, unknown>;
  /**
   * Ecosystem events: only webhooks of this ecosystem's organisation hear it, and only those whose
   * `ecosystem_ids` is empty or contains it.
   */
  ecosystemId?: number;
  /**
   * The feed position (a commit's) of the change the event reports: only webhooks created before it
   * (`from_position` below it) hear the event. Undefined: every live subscriber hears it.
   */
  position?: string;
  /** Only webhooks of this organisation hear it (an export's events). */
  orgId?: string;
}

/** NOTIFYed (at commit) when deliveries are created, so deliverers wake at once. */
export const DELIVERIES_CHANNEL = 'vda_webhook_deliveries';

const asRows = (events: readonly OutboxEvent[]) =>
  JSON.stringify(
    [...new Map(events.map((event) => [event.id, event])).values()].map((event) => ({
      id: event.id,
      type: event.type,
      occurred_at: event.occurredAt.toISOString(),
      data: event.data,
      ecosystem_id: event.ecosystemId ?? null,
      position: event.position ?? null,
      org_id: event.orgId ?? null,
    })),
  );

/**
 * Within the caller's transaction: one delivery per (active, enabled webhook subscribed to the type
 * and created before the event's change, event); an event id already enqueued is skipped, and an event no webhook hears is not stored.
 * Change events reach every organisation's subscribers (reference data is shared); ecosystem events
 * only the ecosystem's organisation's.
 * Returns how many deliveries were created.
 */
export async function enqueueEvents(tx: SqlTransaction, events: readonly OutboxEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const [row] = await tx.query<{ count: number }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(id text, type text, occurred_at timestamptz, data jsonb, ecosystem_id int, position bigint, org_id text)
     ), heard AS (
       -- Each event with the webhooks that hear it; an event nobody hears is not stored (an import's
       -- hundred thousand changes cost nothing here while no webhook subscribes to them).
       SELECT e.id, e.type, e.occurred_at, e.data, e.ecosystem_id, w.id AS webhook_id
       FROM input e
       JOIN webhooks w ON w.is_active AND w.enabled AND w.events @> ARRAY[e.type]
                      -- A webhook hears what was committed after its creation, never before.
                      AND (e.position IS NULL OR e.position > w.from_position)
                      AND (e.org_id IS NULL OR e.org_id = w.org_id)
       WHERE e.ecosystem_id IS NULL
          OR (EXISTS (SELECT 1 FROM ecosystems x WHERE x.id = e.ecosystem_id AND x.org_id = w.org_id)
              AND (cardinality(w.ecosystem_ids) = 0 OR e.ecosystem_id = ANY (w.ecosystem_ids)))
     ), inserted AS (
       INSERT INTO webhook_events (id, type, occurred_at, data, ecosystem_id)
       SELECT DISTINCT ON (id) id, type, occurred_at, data, ecosystem_id FROM heard
       ON CONFLICT (id) DO NOTHING
       RETURNING id
     ), created AS (
       INSERT INTO webhook_deliveries (webhook_id, event_id)
       SELECT h.webhook_id, h.id FROM heard h JOIN inserted USING (id)
       ON CONFLICT (webhook_id, event_id) DO NOTHING
       RETURNING 1
     )
     SELECT count(*)::int AS count FROM created`,
    [asRows(events)],
  );
  const count = row?.count ?? 0;
  if (count > 0) await notifyDeliverers(tx);
  return count;
}

/** A `webhook.test` event for one webhook only (POST /api/webhooks/{id}/test); returns its delivery id. */
export async function enqueueTestEvent(tx: SqlTransaction, webhookId: number, now: Date): Promise<number> {
  const id = `evt_test_${randomUUID()}`;
  const [row] = await tx.query<{ id: number }>(
    `WITH event AS (
       INSERT INTO webhook_events (id, type, occurred_at, data) VALUES ($1, $2, $3, $4::jsonb) RETURNING id
     )
     INSERT INTO webhook_deliveries (webhook_id, event_id) SELECT $5, id FROM event RETURNING id`,
    [id, TEST_EVENT_TYPE, now.toISOString(), JSON.stringify({ webhook_id: webhookId }), webhookId],
  );
  await notifyDeliverers(tx);
  return row!.id;
}

/** Heard when the transaction commits (never if it rolls back). */
export async function notifyDeliverers(tx: SqlTransaction): Promise<void> {
  await tx.query('SELECT 1 AS notified FROM pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
}
