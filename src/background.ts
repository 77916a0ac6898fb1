/**
 * What runs beside the requests: usage counted in memory and flushed in batches, the usage table's
 * partitions kept ahead, webhook deliveries, and the followers of the change feed (membership events,
 * webhook events). Each instance runs them; the database decides who does which piece of work.
 */
import type { GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import { webhookEventFollower } from './changes/change-events.ts';
import { startDeliverer } from './changes/deliverer.ts';
import { enqueueMembershipEvents, membershipFollower } from './changes/membership.ts';
import { DEFAULT_RETRY_DELAYS_MS } from './changes/retry-schedule.ts';
import type { SecretBox } from './changes/secret-box.ts';
import type { UrlPolicy } from './changes/webhook-url.ts';
import { startChangeWorker } from './changes/worker.ts';
import type { Config } from './config.ts';
import type { SqlClient } from './db/client.ts';
import type { Logger } from './logger.ts';
import type { ReadList } from './exports/create.ts';
import { exportFinished } from './exports/finished.ts';
import type { Foreground } from './exports/job.ts';
import { startExportWorker } from './exports/worker.ts';
import { createUsageCounter, type UsageCounter } from './usage/counter.ts';
import { scheduleUsagePartitions, type PartitionMaintenance } from './usage/partitions.ts';

export interface BackgroundWork {
  usage: UsageCounter;
  usagePartitions: PartitionMaintenance;
  /** Looks for a queued export now (one was just asked for on this instance). */
  wakeExports(): void;
  /** Writes the usage still in memory and hands back webhook deliveries in flight. */
  close(): Promise<void>;
}

export interface BackgroundOptions {
  config: Config;
  sql: SqlClient;
  logger: Logger;
  registry: Registry;
  schema: GraphQLSchema;
  clock: () => Date;
  /** The clock's milliseconds, cheaply: usage stamps every request. */
  now: () => number;
  webhooks: { urls: UrlPolicy; secrets: SecretBox };
  /** The REST list read as an export's creator (src/exports/list-reader.ts). */
  readList: ReadList;
  /** The requests in flight, which an export's reads let go first. */
  foreground?: Foreground;
}

export function startBackgroundWork({ config, sql, logger, registry, schema, clock, now, webhooks, readList, foreground }: BackgroundOptions): BackgroundWork {
  const usage = createUsageCounter({
    sql,
    logger,
    flushIntervalMs: config.USAGE_FLUSH_INTERVAL_MS,
    registry,
    now,
  });
  const usagePartitions = scheduleUsagePartitions({ sql, logger, retentionDays: config.USAGE_RETENTION_DAYS, now: clock });
  // Webhook deliveries go out from every instance; the database decides which one makes each attempt.
  const deliverer = startDeliverer({
    sql,
    logger,
    registry,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    leaseMs: config.WEBHOOK_LEASE_MS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS ?? DEFAULT_RETRY_DELAYS_MS,
    retentionMs: config.WEBHOOK_LOG_RETENTION_DAYS * 86_400_000,
    ...webhooks,
  });
  const changeWorker = config.BACKGROUND_WORKERS
    ? startChangeWorker({
        sql,
        followers: [membershipFollower({ logger, onChange: enqueueMembershipEvents }), webhookEventFollower(schema)],
        logger,
        registry,
        pollMs: config.CHANGES_POLL_MS,
        retentionDays: config.CHANGES_RETENTION_DAYS,
      })
    : undefined;
  // Exports run on every instance that runs background work; the database gives each job to one of them.
  // The embedded database runs one statement at a time: an export's are fewer at once, and shorter.
  const embedded = config.DATABASE_URL === undefined;
  const exportWorker = config.BACKGROUND_WORKERS
    ? startExportWorker({
        sql,
        schema,
        readList,
        logger,
        maxFileRows: config.EXPORT_FILE_MAX_ROWS,
        pageRows: config.EXPORT_PAGE_ROWS ?? (embedded ? 200 : 500),
        readers: config.EXPORT_READERS ?? (embedded ? 1 : 2),
        ...(foreground ? { foreground } : {}),
        pollMs: config.EXPORT_POLL_MS,
        leaseMs: config.EXPORT_LEASE_MS,
        retentionDays: config.EXPORT_RETENTION_DAYS,
        onFinished: (row, outcome) => exportFinished(sql, row, outcome, clock()),
      })
    : undefined;
  return {
    usage,
    usagePartitions,
    wakeExports: () => exportWorker?.wake(),
    close: async () => {
      usagePartitions.close();
      await usagePartitions.started;
      await Promise.all([usage.close(), deliverer.close(), changeWorker?.stop(), exportWorker?.stop()]);
    },
  };
}
