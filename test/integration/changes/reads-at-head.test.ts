/**
 * What a follower of the feed reads once it stands at the head: nothing. After an import's commit of
 * a thousand changes, a place at the end of that commit must bound the changes' index there, for each
 * statement that polls from a place (webhook events, ecosystem membership, a follower's next batch, a
 * client's page of /api/changes). Each is run as the code sends it, with EXPLAIN ANALYZE beside it
 * counting the rows of `changes` its plan read. Written as `position > p OR (resource, object_id) >
 * (r, o)`, every pass re-read the whole commit, and the webhook events' planner scanned the table.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookEventFollower } from '../../../src/changes/change-events.ts';
import { endOf } from '../../../src/changes/cursor.ts';
import { readChangePage } from '../../../src/changes/feed.ts';
import { readNext, runPass, type Follower } from '../../../src/changes/follower.ts';
import { membershipFollower } from '../../../src/changes/membership.ts';
import { CHANGE_RESOURCE_NAMES } from '../../../src/changes/resources.ts';
import type { SqlClient, SqlTransaction } from '../../../src/db/client.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { createLogger } from '../../../src/logger.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
/** Rows of `changes` read by each statement that joined it, since the last reset. */
let read: number[] = [];

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans of `changes` produced or discarded. */
const changesRead = (node: PlanNode): number =>
  (node['Relation Name'] === 'changes'
    ? node['Actual Loops'] * (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0))
    : 0) + (node.Plans ?? []).reduce((sum, child) => sum + changesRead(child), 0);

async function measured(run: (text: string, params?: readonly unknown[]) => Promise<unknown[]>, text: string, params?: readonly unknown[]): Promise<void> {
  if (!/JOIN changes c\b/.test(text)) return;
  const [row] = (await run(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params)) as { 'QUERY PLAN': [{ Plan: PlanNode }] | string }[];
  const plan = row!['QUERY PLAN'];
  read.push(changesRead((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan));
}

const measuring = (tx: SqlTransaction): SqlTransaction => ({
  ...tx,
  query: async (text, params) => {
    await measured((sql, values) => tx.query(sql, values ? [...values] : undefined), text, params);
    return tx.query(text, params);
  },
});

const database = (): SqlClient => ({
  ...db.sql,
  transaction: (work) => db.sql.transaction((tx) => work(measuring(tx))),
  prepared: async (text, params, signal) => {
    await measured((sql, values) => db.sql.query(sql, values ? [...values] : undefined), text, params);
    return db.sql.prepared(text, params, signal);
  },
});

/** Passes until the follower stands at the head (unmeasured), then one more pass, measured. */
async function passAtHead(follower: Follower): Promise<number[]> {
  for (let pass = { full: true }; pass.full; ) pass = await runPass(db.sql, follower, 1_000);
  read = [];
  await runPass(database(), follower, 1_000);
  return read;
}

let head: bigint;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 1_200 });
  // A webhook hears entity updates from now: the events' statement has something to look for.
  await db.sql.exec("INSERT INTO organizations (id, name) VALUES ('reads-at-head', 'reads-at-head') ON CONFLICT (id) DO NOTHING");
  await db.sql.exec(`INSERT INTO webhooks (org_id, url, events, secret, created_by, from_position)
                     SELECT 'reads-at-head', 'https://hooks.example.com/x', ARRAY['entity.updated'], 'unused', 'test', position FROM change_clock`);
  // An import's commit: every entity updated at once.
  await db.sql.exec("UPDATE entities SET tagline = tagline || ' (revised)'");
  const [clock] = await db.sql.query<{ position: string }>('SELECT position::text FROM change_clock');
  head = BigInt(clock!.position);
  const [commit] = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM changes c JOIN change_commits cc ON cc.xid = c.xid WHERE cc.position = $1', [String(head)]);
  expect(commit!.n).toBeGreaterThanOrEqual(1_200);
}, 120_000);

afterAll(async () => {
  await db?.destroy();
});

it('the webhook events follower at the head reads no change', async () => {
  const reads = await passAtHead(webhookEventFollower(getSchema()));
  expect(reads).toEqual([0]);
});

it('the membership follower at the head reads no change', async () => {
  const reads = await passAtHead(membershipFollower({ logger: createLogger({ level: 'silent' }), onChange: async () => undefined }));
  expect(reads.length).toBeGreaterThan(0);
  expect(reads.every((rows) => rows === 0)).toBe(true);
});

it("a follower's next batch and a client's page from the end of the commit read no change", async () => {
  read = [];
  await database().transaction(async (tx) => {
    expect((await readNext(tx, endOf(head), 1_000)).changes).toEqual([]);
  });
  const page = await readChangePage(database(), getSchema(), { since: endOf(head), types: [...CHANGE_RESOURCE_NAMES], limit: 100 });
  expect(page.data).toEqual([]);
  expect(read).toEqual([0, 0]);
});

it('a place inside the commit reads only the changes after it', async () => {
  const [middle] = await db.sql.query<{ object_id: number }>(
    "SELECT c.object_id FROM changes c JOIN change_commits cc ON cc.xid = c.xid WHERE cc.position = $1 AND c.resource = 'entity' ORDER BY c.object_id OFFSET 999 LIMIT 1",
    [String(head)],
  );
  read = [];
  const page = await readChangePage(database(), getSchema(), { since: { position: head, resource: 'entity', objectId: middle!.object_id }, types: ['entity'], limit: 1_000 });
  const [after] = await db.sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM changes c JOIN change_commits cc ON cc.xid = c.xid WHERE cc.position = $1 AND c.resource = 'entity' AND c.object_id > $2",
    [String(head), middle!.object_id],
  );
  expect(page.data.length).toBe(after!.n);
  expect(page.data.every((change) => change.object_id > middle!.object_id)).toBe(true);
  expect(read).toEqual([after!.n]);
});
