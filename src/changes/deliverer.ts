/**
 * The deliverer: a background worker of every server instance (started and stopped with the app, like
 * the usage flusher) that sends pending webhook deliveries (docs/webhooks.md).
 *
 * - Claims: one statement takes due deliveries with FOR UPDATE SKIP LOCKED and reserves each for
 *   WEBHOOK_LEASE_MS under a random claim, so of several instances exactly one attempts each; a
 *   process that dies mid-attempt leaves its claims to expire and be taken again.
 * - Outcomes are written only under the claim they were made with, with the attempt in the log:
 *   2xx succeeds; anything else is retried on the schedule (retry-schedule.ts) until it is spent;
 *   a 410 disables the endpoint; an endpoint failing for 3 days is disabled.
 * - Wakes on NOTIFY (the outbox sends one at commit) and every WEBHOOK_POLL_INTERVAL_MS (retries).
 * - `close()` aborts the attempts in flight and hands their claims back at once.
 */
import { randomUUID } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { DELIVERIES_CHANNEL } from './outbox.ts';
import { DISABLE_FAILING_AFTER_MS, retryDelay } from './retry-schedule.ts';
import { SecretUnavailable, type SecretBox } from './secret-box.ts';
import { postSigned } from './send.ts';
import { resolveForDelivery, UrlRefused, type UrlPolicy } from './webhook-url.ts';

export interface DelivererSettings {
  timeoutMs: number;
  leaseMs: number;
  pollIntervalMs: number;
  concurrency: number;
  retryDelaysMs: readonly number[];
  /** Events older than this, with nothing left pending, are deleted with their deliveries and log. */
  retentionMs: number;
  urls: UrlPolicy;
  secrets: SecretBox;
}

export interface DelivererOptions extends DelivererSettings {
  sql: SqlClient;
  logger: Logger;
  registry?: Registry;
}

export interface Deliverer {
  /** Aborts the attempts in flight, hands their claims back, and stops. */
  close(): Promise<void>;
}

interface Claimed {
  id: number;
  claim: string;
  failures: number;
  webhook_id: number;
  url: string;
  secret: string;
  event_id: string;
  type: string;
  occurred_at: Date | string;
  data: unknown;
}

const PRUNE_INTERVAL_MS = 3_600_000;

type Outcome = 'succeeded' | 'retry_scheduled' | 'gave_up' | 'endpoint_disabled' | 'released';

const CLAIM = `
  WITH due AS (
    SELECT d.id FROM webhook_deliveries d
    JOIN webhooks w ON w.id = d.webhook_id AND w.is_active AND w.enabled
    WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.claimed_until IS NULL OR d.claimed_until < now())
    ORDER BY d.next_attempt_at, d.id
    LIMIT $1
    FOR UPDATE OF d SKIP LOCKED
  ), claimed AS (
    UPDATE webhook_deliveries d SET claimed_until = now() + $2::int * interval '1 millisecond', claim = $3
    FROM due WHERE d.id = due.id
    RETURNING d.id, d.claim, d.failures, d.webhook_id, d.event_id
  )
  SELECT c.id, c.claim, c.failures, c.webhook_id, w.url, w.secret, c.event_id, e.type, e.occurred_at, e.data
  FROM claimed c JOIN webhooks w ON w.id = c.webhook_id JOIN webhook_events e ON e.id = c.event_id
  ORDER BY c.id`;

export function startDeliverer(options: DelivererOptions): Deliverer {
  const { sql, logger } = options;
  const metrics = createDeliveryMetrics(options.registry, sql);
  const inFlight = new Map<number, AbortController>();
  let stopped = false;
  let again = false;
  let running: Promise<void> | undefined;

  const cycle = async (): Promise<void> => {
    do {
      again = false;
      const room = options.concurrency - inFlight.size;
      if (room <= 0) return;
      const claimed = await sql.query<Claimed>(CLAIM, [room, options.leaseMs, randomUUID()]);
      // Claimed while stopping: handed back unattempted.
      if (stopped) return void (await Promise.all(claimed.map(release)));
      if (claimed.length === room) again = true;
      // Attempts run side by side; the next claim waits for a free slot, not for all of them.
      for (const delivery of claimed) {
        const controller = new AbortController();
        inFlight.set(delivery.id, controller);
        void attempt(delivery, controller.signal).finally(() => {
          inFlight.delete(delivery.id);
          if (!stopped) wake();
        });
      }
    } while (again && !stopped);
  };

  const wake = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = cycle()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not claim webhook deliveries; will retry'))
      .finally(() => {
        running = undefined;
        if (again && !stopped) wake();
      });
  };

  const attempt = async (delivery: Claimed, signal: AbortSignal): Promise<void> => {
    const attemptedAt = new Date();
    const started = performance.now();
    let status: number | undefined;
    let error: string | undefined;
    try {
      const secret = options.secrets.open(delivery.secret);
      const url = new URL(delivery.url);
      const address = await resolveForDelivery(url, options.urls);
      const body = JSON.stringify({ type: delivery.type, timestamp: new Date(delivery.occurred_at).toISOString(), data: delivery.data });
      status = await postSigned({ url, address, secret, eventId: delivery.event_id, body, timeoutMs: options.timeoutMs, signal });
      if (status < 200 || status > 299) error = `the endpoint answered ${status}`;
    } catch (caught) {
      if (signal.aborted) {
        await release(delivery);
        return;
      }
      if (caught instanceof SecretUnavailable) logger.error({ webhook: delivery.webhook_id }, `cannot sign webhook deliveries: ${caught.message}`);
      error =
        caught instanceof UrlRefused ? `refused: ${caught.message}`
        : caught instanceof SecretUnavailable ? `not sent: ${caught.message}`
        : describeNetworkError(caught);
    }
    const durationMs = Math.round(performance.now() - started);
    try {
      const outcome = await record(delivery, { attemptedAt, durationMs, status, error });
      metrics?.outcomes.inc({ outcome });
      if (outcome !== 'succeeded') logger.info({ webhook: delivery.webhook_id, delivery: delivery.id, status, error, outcome }, 'webhook delivery attempt failed');
    } catch (caught) {
      // The claim runs out and another attempt follows: at least once.
      logger.warn({ err: caught, webhook: delivery.webhook_id, delivery: delivery.id }, 'could not record a webhook delivery attempt');
    }
  };

  const record = async (
    delivery: Claimed,
    result: { attemptedAt: Date; durationMs: number; status: number | undefined; error: string | undefined },
  ): Promise<Outcome> => {
    const succeeded = result.error === undefined;
    const gone = result.status === 410;
    const failures = succeeded ? 0 : delivery.failures + 1;
    const delay = succeeded || gone ? null : retryDelay(failures, options.retryDelaysMs);
    const outcome: Outcome = succeeded ? 'succeeded' : gone ? 'endpoint_disabled' : delay === null ? 'gave_up' : 'retry_scheduled';
    const status = succeeded ? 'succeeded' : delay === null ? 'failed' : 'pending';
    await sql.transaction(async (tx) => {
      const [updated] = await tx.query<{ next_attempt_at: Date | null }>(
        `UPDATE webhook_deliveries
         SET status = $3, attempts = attempts + 1, failures = $4, claimed_until = NULL, claim = NULL, updated_at = now(),
             next_attempt_at = CASE WHEN $5::int IS NULL THEN next_attempt_at ELSE now() + $5::int * interval '1 millisecond' END
         WHERE id = $1 AND claim = $2
         RETURNING CASE WHEN status = 'pending' THEN next_attempt_at END AS next_attempt_at`,
        [delivery.id, delivery.claim, status, failures, delay],
      );
      // The attempt happened whatever became of the claim; it is logged either way.
      await tx.query(
        `INSERT INTO webhook_attempts (delivery_id, attempted_at, response_status, error, duration_ms, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [delivery.id, result.attemptedAt.toISOString(), result.status ?? null, result.error ?? null, result.durationMs, updated?.next_attempt_at ?? null],
      );
      if (!updated) return;
      if (succeeded) {
        await tx.query('UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [delivery.webhook_id]);
      } else if (gone) {
        await tx.query(
          `UPDATE webhooks SET enabled = false, disabled_reason = 'the endpoint answered 410 Gone', updated_at = now() WHERE id = $1`,
          [delivery.webhook_id],
        );
      } else {
        // Each statement locks the webhook's row only when it changes it: concurrent failures of one
        // endpoint do not queue up behind one another.
        await tx.query('UPDATE webhooks SET failing_since = now() WHERE id = $1 AND failing_since IS NULL', [delivery.webhook_id]);
        await tx.query(
          `UPDATE webhooks SET enabled = false, disabled_reason = 'every attempt failed for 3 days', updated_at = now()
           WHERE id = $1 AND enabled AND failing_since <= now() - $2::int * interval '1 millisecond'`,
          [delivery.webhook_id, DISABLE_FAILING_AFTER_MS],
        );
      }
    });
    return outcome;
  };

  /** Hands an aborted attempt's claim back: it was not made, so it is not logged. */
  const release = async (delivery: Claimed): Promise<void> => {
    await sql
      .query('UPDATE webhook_deliveries SET claimed_until = NULL, claim = NULL WHERE id = $1 AND claim = $2', [delivery.id, delivery.claim])
      .catch(() => undefined);
    metrics?.outcomes.inc({ outcome: 'released' });
  };

  const timer = setInterval(wake, options.pollIntervalMs);
  timer.unref();
  const subscription = sql.listen?.(DELIVERIES_CHANNEL, {
    onNotification: wake,
    onReady: wake,
    onLost: () => undefined,
  });
  wake();

  const waitForAttempts = async (): Promise<void> => {
    while (running || inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  // At the start and hourly; several instances pruning at once only find less to delete.
  let pruned: Promise<unknown> = Promise.resolve();
  const prune = (): void => {
    pruned = sql
      .query(
        `DELETE FROM webhook_events e
         WHERE e.created_at < now() - $1::bigint * interval '1 millisecond'
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')`,
        [options.retentionMs],
      )
      .catch((error: unknown) => logger.warn({ err: error }, 'could not prune old webhook events; will retry'));
  };
  const pruning = setInterval(prune, PRUNE_INTERVAL_MS);
  pruning.unref();
  prune();

  return {
    close: async () => {
      stopped = true;
      clearInterval(timer);
      clearInterval(pruning);
      await subscription?.close();
      for (const controller of inFlight.values()) controller.abort();
      await Promise.all([waitForAttempts(), pruned]);
    },
  };
}

/** What went wrong on the wire, for the log: the code and message, never the URL (it may carry a token). */
function describeNetworkError(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset by the endpoint';
  return code ? `${code}: ${message}` : String(message ?? error);
}

function createDeliveryMetrics(registry: Registry | undefined, sql: Pick<SqlClient, 'query'>) {
  if (!registry) return undefined;
  const registers = [registry];
  const pending = async () =>
    (
      await sql.query<{ count: number; age: number | null }>(
        `SELECT count(*)::int AS count, extract(epoch FROM now() - min(d.created_at))::float8 AS age
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.is_active AND w.enabled
         WHERE d.status = 'pending'`,
      )
    )[0];
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Webhook deliveries waiting for a first attempt or a retry (of enabled webhooks)',
    registers,
    async collect() {
      this.set((await pending())?.count ?? 0);
    },
  });
  new Gauge({
    name: 'webhook_oldest_pending_delivery_age_seconds',
    help: 'Age of the oldest pending webhook delivery (0 when none is pending)',
    registers,
    async collect() {
      this.set((await pending())?.age ?? 0);
    },
  });
  const outcomes = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this process, by outcome: succeeded, retry_scheduled, gave_up, endpoint_disabled, released (aborted at shutdown)',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of ['succeeded', 'retry_scheduled', 'gave_up', 'endpoint_disabled', 'released'] as const) outcomes.inc({ outcome }, 0);
  return { outcomes };
}
