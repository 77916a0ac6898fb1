/**
 * `/metrics` for the followers of the changes feed: where each stands (read from the database at each
 * scrape, wherever the passes ran), and the events
 * this process's passes emitted, by type, counted once their pass committed. An event no webhook
 * hears is emitted all the same (and then not stored): a membership change nobody listens for shows
 * here, not in the deliveries.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SqlClient } from '../db/client.ts';
import type { EventCounts } from './follower.ts';

export interface FollowerMetrics {
  emitted(follower: string, counts: EventCounts): void;
}

interface Standing {
  name: string;
  position: number;
  behind: number;
  lag: number;
}

/**
 * Each follower's place, how many commits it has not passed (the one it stands inside counts), and
 * how long the oldest of them has waited. A place past retention's pruning needs no commit row.
 */
const STANDING = `
  SELECT f.name, f.position::float8 AS position,
         (h.position - f.position + CASE WHEN f.resource = '~' THEN 0 ELSE 1 END)::float8 AS behind,
         coalesce(extract(epoch FROM now() - (
           SELECT min(cc.committed_at) FROM change_commits cc
            WHERE cc.position > f.position OR (cc.position = f.position AND f.resource <> '~'))), 0)::float8 AS lag
    FROM change_followers f CROSS JOIN change_clock h ORDER BY f.name`;

export function followerMetrics(registry: Registry, sql: Pick<SqlClient, 'query'>): FollowerMetrics {
  const registers = [registry];
  const gauge = (name: string, help: string, value: (standing: Standing) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['follower'] as const,
      registers,
      async collect() {
        for (const standing of await sql.query<Standing>(STANDING)) this.set({ follower: standing.name }, value(standing));
      },
    });
  gauge('change_follower_position', 'The commit position of the changes feed each follower has reached', (standing) => standing.position);
  gauge('change_follower_lag_commits', 'Commits of the changes feed each follower has not passed yet (0: at the head)', (standing) => standing.behind);
  gauge('change_follower_lag_seconds', 'How long the oldest commit each follower has not passed has waited (0: at the head)', (standing) => standing.lag);
  const events = new Counter({
    name: 'change_follower_events_total',
    help: 'Webhook events the followers of this process emitted, by follower and type (also those no webhook hears)',
    labelNames: ['follower', 'type'] as const,
    registers,
  });
  return {
    emitted: (follower, counts) => {
      for (const type in counts) events.inc({ follower, type }, counts[type]);
    },
  };
}
