// Exact after a graceful stop: a server process under load gets SIGTERM with requests in flight and
// most counts still in memory (a long flush interval); after a restart on the same database the
// series holds exactly the responses clients received, errors included, plus at most one request per
// client connection that the stop cut off (counted as an abandoned request, 499: an error).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testDatabaseKind } from '../../helpers/db.ts';
import { createScratchDatabase } from '../../helpers/server-process.ts';
import { adminOf, createCaller, processEnvironment, readRecent, startServer, stopServer, type Caller } from './process-support.ts';
import { seriesTotals } from './support.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
const LANES = 4;

beforeAll(async () => {
  if (testDatabaseKind() === 'postgres') database = await createScratchDatabase();
});

afterAll(async () => {
  await database?.drop();
});

/** Sends requests in `lanes` loops until the server stops answering; returns the statuses received. */
async function loadUntilStopped(url: string, caller: Caller, lanes: number): Promise<number[]> {
  const statuses: number[] = [];
  // Each lane ends at its first refused or cut-off request.
  const lane = async (index: number) => {
    for (let i = 0; ; i += 1) {
      // Every fifth request is a bad id: a 400 that must count as an error.
      const path = (i + index) % 5 === 0 ? '/api/entities/not-an-id' : '/api/entities?limit=1';
      try {
        const response = await fetch(`${url}${path}`, { headers: caller.headers });
        await response.arrayBuffer();
        statuses.push(response.status);
      } catch {
        return; // refused or reset: the server has stopped taking requests
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, index) => lane(index)));
  return statuses;
}

it('loses nothing on SIGTERM under load: the restarted server reports exactly what clients received', async () => {
  // The longest flush interval: most of the load is still in memory when SIGTERM arrives.
  const env = processEnvironment({
    USAGE_FLUSH_INTERVAL_MS: '4000',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'vda-usage-')),
    ...(database ? { DATABASE_URL: database.url } : {}),
  });
  const first = await startServer(env);
  const admin = await adminOf(first.url, env);
  const load = await createCaller(first.url, env, admin, ['read:entities']);

  const loading = loadUntilStopped(first.url, load, LANES);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await stopServer(first)).toBe(0);
  const statuses = await loading;
  expect(statuses.length).toBeGreaterThan(20);
  expect(new Set(statuses)).toEqual(new Set([200, 400]));

  const second = await startServer(env);
  try {
    const totals = seriesTotals(await readRecent(second.url, await adminOf(second.url, env), load.clientId));
    const list = totals.get('GET /api/entities') ?? { requests: 0, errors: 0 };
    const byId = totals.get('GET /api/entities/{id}') ?? { requests: 0, errors: 0 };
    // Every answered request is there, exactly: successes without error, 400s as errors.
    expect(list.requests - list.errors).toBe(statuses.filter((status) => status === 200).length);
    expect(byId.requests - byId.errors).toBe(0);
    const cutOff = list.errors + byId.errors - statuses.filter((status) => status === 400).length;
    expect(cutOff).toBeGreaterThanOrEqual(0);
    expect(cutOff).toBeLessThanOrEqual(LANES);
  } finally {
    expect(await stopServer(second)).toBe(0);
  }
}, 120_000);
