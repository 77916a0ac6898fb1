/**
 * Runs the followers of the changes feed and the retention of changes in the background: every
 * `pollMs`, each follower catches up (a full batch is followed by another at once, the followers
 * taking turns), and once an hour
 * old changes are pruned. A failed pass is logged and tried again at the next tick; `stop()` waits for
 * the pass under way, so a shutdown never cuts one in half (and a cut one rolls back anyway).
 */
import type { Registry } from 'prom-client';
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { runPass, type Follower } from './follower.ts';
import { followerMetrics } from './follower-metrics.ts';
import { pruneChanges } from './retention.ts';

export interface ChangeWorkerOptions {
  sql: SqlClient;
  followers: readonly Follower[];
  logger: Logger;
  pollMs: number;
  retentionDays: number;
  batchSize?: number;
  /** Where the followers' standing and events are shown (`/metrics`). */
  registry?: Registry;
}

export interface ChangeWorker {
  stop(): Promise<void>;
}

const PRUNE_EVERY_MS = 3_600_000;

export function startChangeWorker(options: ChangeWorkerOptions): ChangeWorker {
  const batchSize = options.batchSize ?? 1_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let prunedAt = 0;
  const metrics = options.registry && followerMetrics(options.registry, options.sql);

  // The followers take turns, a batch each, so one's backlog never holds back another's present.
  const catchUp = async (): Promise<void> => {
    let behind = [...options.followers];
    while (behind.length && !stopped) {
      const passes = [];
      for (const follower of behind) {
        const pass = await runPass(options.sql, follower, batchSize);
        metrics?.emitted(follower.name, pass.emitted);
        passes.push({ follower, pass });
      }
      behind = passes.filter(({ pass }) => pass.ran && pass.full).map(({ follower }) => follower);
    }
  };

  const tick = async (): Promise<void> => {
    try {
      await catchUp();
      if (Date.now() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        const removed = await pruneChanges(options.sql, options.retentionDays);
        if (removed) options.logger.info({ commits: removed }, 'pruned changes older than the retention period');
      }
    } catch (error) {
      options.logger.warn({ err: error }, 'following the changes feed failed; trying again shortly');
    }
  };

  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(schedule);
    }, options.pollMs);
    timer.unref();
  };

  running = tick().finally(schedule);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
