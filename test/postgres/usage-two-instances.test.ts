// Two real server processes on one PostgreSQL and one Redis, as behind a load balancer: the usage
// series is the sum of what both counted, and the rate limit is one bucket for both.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScratchDatabase } from '../helpers/server-process.ts';
import {
  adminOf,
  createCaller,
  processEnvironment,
  readRecent,
  startServer,
  stopServer,
  type RunningServer,
} from '../integration/usage/process-support.ts';
import { seriesTotals, VISIBLE_WITHIN_MS } from '../integration/usage/support.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BURST = 20;

let database: { url: string; drop(): Promise<void> };
let servers: RunningServer[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  database = await createScratchDatabase();
  env = processEnvironment({
    DATABASE_URL: database.url,
    REDIS_URL,
    RATE_LIMIT_PER_SECOND: '1',
    RATE_LIMIT_BURST: String(BURST),
    USAGE_FLUSH_INTERVAL_MS: '500',
  });
  // The first migrates; the second starts on the migrated database.
  servers = [await startServer(env)];
  servers.push(await startServer(env));
}, 120_000);

afterAll(async () => {
  const exits = await Promise.all(servers.map(stopServer));
  await database.drop();
  expect(exits).toEqual(servers.map(() => 0));
});

it('sums usage over both instances and shares one rate-limit bucket per client', async () => {
  const [first, second] = servers as [RunningServer, RunningServer];
  const admin = await adminOf(first.url, env);
  const load = await createCaller(first.url, env, admin, ['read:entities']);

  const total = 3 * BURST;
  const started = Date.now();
  const statuses = await Promise.all(
    Array.from({ length: total }, async (_, index) => {
      const response = await fetch(`${(index % 2 ? second : first).url}/api/entities?limit=1`, { headers: load.headers });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const refills = Math.ceil((Date.now() - started) / 1000);
  const allowed = statuses.filter((status) => status === 200).length;
  // One shared bucket lets BURST through (plus what refilled meanwhile); two separate ones would let
  // twice as many through.
  expect(allowed).toBeGreaterThanOrEqual(BURST);
  expect(allowed).toBeLessThanOrEqual(BURST + refills);
  expect(statuses.filter((status) => status === 429)).toHaveLength(total - allowed);

  // Read through either instance, within the documented 5 seconds: the sum of both.
  const expected = { requests: total, errors: total - allowed };
  const deadline = Date.now() + VISIBLE_WITHIN_MS;
  let seen: unknown;
  for (const server of [first, second, first, second, first, second, first, second]) {
    seen = seriesTotals(await readRecent(server.url, admin, load.clientId)).get('GET /api/entities');
    if (JSON.stringify(seen) === JSON.stringify(expected) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(seen).toEqual(expected);
  const [fromFirst, fromSecond] = await Promise.all([first, second].map((server) => readRecent(server.url, admin, load.clientId)));
  expect(fromFirst).toEqual(fromSecond);
}, 60_000);
