// The order test files start in. Two workers share the suite (vitest.config.ts): a long file that
// starts last keeps one of them busy alone at the end, so the long files start first. Vitest's own
// order knows durations only from a cache of earlier runs, which a fresh clone (CI) does not have;
// there it runs every embedded-database file before any PostgreSQL one.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file took on one serial run of the whole suite on the 2-core machine, the files over
 * about 10 s: an order, not a budget (a file missing here starts after these, a stale number only
 * moves it).
 */
const SLOW_SECONDS: Readonly<Record<string, number>> = {
  'pglite:test/integration/compile/compiled-equals-resolvers.test.ts': 59,
  'pglite:test/integration/embedded-statement-timeout.test.ts': 51,
  'pglite:test/integration/similar.test.ts': 38,
  'pglite:test/integration/csv-export-demo.test.ts': 29,
  'pglite:test/integration/shutdown-during-export.test.ts': 28,
  'pglite:test/integration/management/boundaries.test.ts': 28,
  'pglite:test/integration/demo.test.ts': 27,
  'postgres:test/integration/management/boundaries.test.ts': 25,
  'pglite:test/integration/compiled-start.test.ts': 24,
  'pglite:test/integration/read-api/differential.test.ts': 21,
  'pglite:test/integration/auth/permission-walk.test.ts': 21,
  'postgres:test/integration/compile/compiled-equals-resolvers.test.ts': 19,
  'postgres:test/postgres/management-races.test.ts': 19,
  'pglite:test/integration/webhooks/restart.test.ts': 17,
  'postgres:test/integration/shutdown-during-export.test.ts': 17,
  'postgres:test/integration/similar.test.ts': 16,
  'pglite:test/integration/read-api/cursor-differential.test.ts': 16,
  'postgres:test/integration/compiled-start.test.ts': 16,
  'postgres:test/integration/demo.test.ts': 15,
  'postgres:test/integration/webhooks/restart.test.ts': 15,
  'postgres:test/integration/read-api/differential.test.ts': 15,
  'pglite:test/integration/read-api/name-search.test.ts': 14,
  'pglite:test/integration/webhooks/demo-backlog.test.ts': 13,
  'pglite:test/integration/openapi-strictness-sweep.test.ts': 13,
  'pglite:test/integration/usage/shutdown.test.ts': 13,
  'pglite:test/integration/lifecycle.test.ts': 13,
  'pglite:test/integration/usage/partitions.test.ts': 12,
  'pglite:test/integration/auth/token-endpoint.test.ts': 12,
  'pglite:test/integration/openapi.test.ts': 12,
  'pglite:test/integration/search/search.test.ts': 12,
  'pglite:test/integration/data-dir-lock.test.ts': 12,
  'postgres:test/integration/csv-export-demo.test.ts': 12,
  'pglite:test/integration/csv-export-aggregate.test.ts': 12,
  'postgres:test/postgres/read-replicas.test.ts': 12,
  'pglite:test/integration/similar-pruning.test.ts': 11,
  'pglite:test/integration/webhooks/delivery.test.ts': 11,
  'pglite:test/integration/changes/demo-feed.test.ts': 11,
  'pglite:test/integration/match/match.test.ts': 10,
  'pglite:test/integration/auth/rate-limit.test.ts': 10,
  'pglite:test/browser/graphiql-and-docs.test.ts': 10,
  'postgres:test/integration/usage/shutdown.test.ts': 10,
  'pglite:test/integration/changes/webhook-events.test.ts': 10,
  'pglite:test/integration/aggregates/docs-examples.test.ts': 10,
  'pglite:test/integration/startup-log.test.ts': 10,
};

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(root, spec.moduleId)}`;
    const slow = files.filter((spec) => SLOW_SECONDS[key(spec)] !== undefined).sort((a, b) => SLOW_SECONDS[key(b)]! - SLOW_SECONDS[key(a)]!);
    // The rest alternate between the projects, larger files first: an embedded-database file works in
    // the worker while a PostgreSQL one waits on the server half the time, so the two mix well.
    const size = (spec: TestSpecification) => statSync(spec.moduleId).size;
    const byProject = new Map<string, TestSpecification[]>();
    for (const spec of files) {
      if (SLOW_SECONDS[key(spec)] !== undefined) continue;
      const queue = byProject.get(spec.project.name);
      if (queue) queue.push(spec);
      else byProject.set(spec.project.name, [spec]);
    }
    const queues = [...byProject.keys()].sort().map((name) => byProject.get(name)!.sort((a, b) => size(b) - size(a) || a.moduleId.localeCompare(b.moduleId)));
    const rest: TestSpecification[] = [];
    for (let i = 0; queues.some((queue) => i < queue.length); i++) for (const queue of queues) if (queue[i]) rest.push(queue[i]!);
    return [...slow, ...rest];
  }
}
