/**
 * A served request leaves little for the old generation: what it allocates dies young, in the
 * scavenges, instead of being promoted and left to the mark-compacts. A WeakMap keyed by a per-request
 * object, or an object literal with accessors made per request, once kept about 10 KB of every by-id
 * read alive through young collections (docs/compiled-reads.md, "Garbage that outlives its request"),
 * and the garbage collector then cost more than the rest of the request path.
 *
 * Measured in the service's own process, as `npm start` runs it, from its /metrics: the growth of the
 * heap's old spaces per request over a few thousand requests, in a window in which no full collection
 * ran (one would shrink them). On the PostgreSQL server, so the process holds no embedded database.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { TEST_USER_AGENT } from '../helpers/auth.ts';
import { createScratchDatabase, freePort, startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

const REQUESTS = 3_000;
// Before the fix a by-id read grew them by about 10,000 bytes here; now by under 2,000.
const MOST_BYTES_PER_REQUEST = 4_000;

let database: { url: string; drop(): Promise<void> };
let server: ServerProcess;
let base: string;
let headers: Record<string, string>;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

beforeAll(async () => {
  database = await createScratchDatabase();
  const db = await openDatabase({ url: database.url, poolSize: 2 });
  try {
    await migrate(db.sql);
    await seedDatabase(db, { entities: 50 });
  } finally {
    await db.close();
  }
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  const clientId = 'garbage-admin';
  const clientSecret = `vds_${randomBytes(32).toString('base64url')}`;
  server = startServerProcess({
    DATABASE_URL: database.url,
    PORT: String(port),
    PUBLIC_URL: base,
    ADMIN_CLIENT_ID: clientId,
    ADMIN_CLIENT_SECRET: clientSecret,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    LOG_LEVEL: 'warn',
  });
  await waitForReady(server);
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: base }),
  });
  const { access_token: token } = (await response.json()) as { access_token: string };
  headers = { Authorization: `Bearer ${token}`, 'X-Client-Id': clientId, 'User-Agent': TEST_USER_AGENT };
}, 120_000);

async function waitForReady(process: ServerProcess): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (await fetch(`${base}/readyz`).then((response) => response.ok, () => false)) return;
    if (process.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not become ready:\n${process.output()}`);
}

afterAll(async () => {
  agent.destroy();
  server?.child.kill('SIGTERM');
  await server?.exit;
  await database?.drop();
});

/** Sends one request and reads its answer to the end; resolves with the status. */
function send(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { agent, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
    request.end();
  });
}

/** The bytes used in the heap's old spaces (every space but the young one), and the full collections so far. */
async function heap(): Promise<{ old: number; fullCollections: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let old = 0;
  for (const [, space, bytes] of text.matchAll(/^nodejs_heap_space_size_used_bytes\{space="(\w+)"\} (\d+)$/gm)) {
    if (space !== 'new') old += Number(bytes);
  }
  const fullCollections = Number(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  return { old, fullCollections };
}

/** Old-space bytes per request over `REQUESTS` requests eight at a time, in the first of five windows no full collection interrupted. */
async function promotedPerRequest(serve: () => Promise<number>): Promise<number> {
  const statuses = new Set<number>();
  const burst = async () => {
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next++ < REQUESTS) statuses.add(await serve());
    }));
  };
  await burst(); // warm-up: compiled code, pooled sockets and sessions, plans
  for (let window = 0; window < 5; window += 1) {
    const before = await heap();
    await burst();
    const after = await heap();
    if (after.fullCollections === before.fullCollections) {
      expect([...statuses]).toEqual([200]);
      return (after.old - before.old) / REQUESTS;
    }
  }
  throw new Error('every window was interrupted by a full collection');
}

test('a record read by id leaves little for the old generation', async () => {
  expect(await promotedPerRequest(() => send('/api/entities/7'))).toBeLessThan(MOST_BYTES_PER_REQUEST);
}, 120_000);
