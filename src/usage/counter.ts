/**
 * Usage counting without a database round trip per request: requests are added up in memory per
 * (hour, organisation, client, endpoint) and written every USAGE_FLUSH_INTERVAL_MS as one additive
 * upsert per batch (store.ts). `flush()` also runs on shutdown, before the database closes, so a
 * graceful stop loses nothing; a crash loses at most what arrived since the last flush.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { addToBuckets, compareIncrements, type BucketIncrement } from './store.ts';

/** Whom a request is charged to: the client a verified token speaks for, in its organisation. */
export interface CountedClient {
  orgId: string;
  clientId: string;
}

export interface UsageCounter {
  /** Counts one answered request; a status of 400 or more also counts as an error. */
  record(client: CountedClient, endpoint: string, status: number, at?: number): void;
  /** Writes everything counted so far; resolves once it is stored (rejects if the write failed). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

export interface UsageCounterOptions {
  sql: Pick<SqlClient, 'query'>;
  logger: Logger;
  flushIntervalMs: number;
  /** Where the /metrics counters go (none in unit tests). */
  registry?: Registry;
  /** Rows per statement. */
  batchSize?: number;
  /** The app's clock, in milliseconds. */
  now?: () => number;
}

const HOUR_MS = 3_600_000;
const SEPARATOR = '\u0000';

export function createUsageCounter(options: UsageCounterOptions): UsageCounter {
  const batchSize = options.batchSize ?? 500;
  const now = options.now ?? Date.now;
  let pending = new Map<string, BucketIncrement>();
  const metrics = createUsageMetrics(options.registry, () => pending.size);
  let flushing: Promise<void> = Promise.resolve();

  // On every request: one string key and, for a new key only, one object.
  const add = (hour: number, orgId: string, clientId: string, endpoint: string, requests: number, errors: number): void => {
    const key = `${hour}${SEPARATOR}${orgId}${SEPARATOR}${clientId}${SEPARATOR}${endpoint}`;
    const entry = pending.get(key);
    if (entry) {
      entry.requests += requests;
      entry.errors += errors;
    } else {
      pending.set(key, { orgId, clientId, endpoint, bucket: new Date(hour), requests, errors });
    }
  };

  const writePending = async (): Promise<void> => {
    if (pending.size === 0) return;
    const rows = [...pending.values()].sort(compareIncrements);
    pending = new Map();
    for (let start = 0; start < rows.length; start += batchSize) {
      const batch = rows.slice(start, start + batchSize);
      try {
        await addToBuckets(options.sql, batch);
        metrics?.rowsWritten.inc(batch.length);
      } catch (error) {
        // Keep what was not stored for the next flush; requests counted meanwhile add to it.
        for (const row of rows.slice(start)) {
          add(row.bucket.getTime(), row.orgId, row.clientId, row.endpoint, row.requests, row.errors);
        }
        metrics?.failedFlushes.inc();
        throw error;
      }
    }
  };

  // One flush at a time; a flush asked for while one runs waits for it, then writes the rest.
  const flush = (): Promise<void> => {
    flushing = flushing.then(writePending, writePending);
    return flushing;
  };

  const timer = setInterval(() => {
    flush().catch((error: unknown) => options.logger.warn({ err: error }, 'could not write usage; will retry'));
  }, options.flushIntervalMs);
  // The timer never keeps a process alive on its own.
  timer.unref();

  return {
    record: (client, endpoint, status, at = now()) => {
      const isError = status >= 400;
      add(at - (at % HOUR_MS), client.orgId, client.clientId, endpoint, 1, isError ? 1 : 0);
      metrics?.countRequest(endpoint, isError);
    },
    flush,
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}

/** Totals without a client label: the per-client view is the time series, not /metrics. */
function createUsageMetrics(registry: Registry | undefined, pendingRows: () => number) {
  if (!registry) return undefined;
  const registers = [registry];
  new Gauge({
    name: 'usage_pending_rows',
    help: 'Usage bucket rows counted in memory and not yet written',
    registers,
    collect() {
      this.set(pendingRows());
    },
  });
  // Counted in plain numbers per series and handed to prom-client when /metrics is read: its labelled
  // `inc()` hashes the labels on every call, a measurable share of a small read.
  const series = new Map<string, { labels: { endpoint: string; error: string }; pending: number }>();
  new Counter({
    name: 'usage_requests_total',
    help: 'Requests counted for usage (a known client), by endpoint and whether the status was an error',
    labelNames: ['endpoint', 'error'] as const,
    registers,
    collect() {
      for (const entry of series.values()) {
        if (entry.pending === 0) continue;
        this.inc(entry.labels, entry.pending);
        entry.pending = 0;
      }
    },
  });
  return {
    countRequest: (endpoint: string, isError: boolean) => {
      const key = `${endpoint}${SEPARATOR}${isError}`;
      let entry = series.get(key);
      if (!entry) series.set(key, (entry = { labels: { endpoint, error: String(isError) }, pending: 0 }));
      entry.pending += 1;
    },
    rowsWritten: new Counter({
      name: 'usage_bucket_rows_written_total',
      help: 'Usage bucket rows added to the database by this process',
      registers,
    }),
    failedFlushes: new Counter({
      name: 'usage_flush_failures_total',
      help: 'Usage flushes that failed (their counts are kept and retried)',
      registers,
    }),
  };
}
