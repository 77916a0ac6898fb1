/**
 * Commit order under concurrency, on PostgreSQL: a change written first but committed last is not
 * skipped by a reader that already passed the ones committed before it (what a serial id or a
 * timestamp would do), and a feed followed while several importers write at once returns every
 * change exactly once, in commit order, from any cursor.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDirectory } from '../../src/data/import/index.ts';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

interface Change {
  id: string;
  type: string;
  object_id: number;
}
interface Page {
  data: Change[];
  page: { next_cursor: string };
}

let app: TestApp;
let auth: TestCredentials;
let dir: string;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 300, seed: 5 });
  auth = await createApiKeyAndToken(app);
  dir = await mkdtemp(join(tmpdir(), 'changes-concurrent-'));
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function page(since: string, limit = 1000): Promise<Page> {
  const response = await auth.fetch(`/api/changes?since=${since}&limit=${limit}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

async function followToEnd(since: string, limit = 1000): Promise<Change[]> {
  const changes: Change[] = [];
  for (let cursor = since; ; ) {
    const next = await page(cursor, limit);
    changes.push(...next.data);
    cursor = next.page.next_cursor;
    if (next.data.length < limit) return changes;
  }
}

/** A client of its own on the test's schema: a transaction held open across the test's steps. */
async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: app.db.connection.url });
  await client.connect();
  await client.query(`SET search_path TO "${app.db.connection.schema}"`);
  return client;
}

describe('commit order', () => {
  it('a change written first and committed last comes after the ones committed before it, not skipped', async () => {
    const start = (await page('now')).page.next_cursor;
    const slow = await connect();
    const fast = await connect();
    try {
      await slow.query('BEGIN');
      await slow.query(`UPDATE entities SET tagline = 'written first' WHERE id = 1`);
      await fast.query(`UPDATE entities SET tagline = 'committed first' WHERE id = 2`);
      const seen = await followToEnd(start);
      expect(seen.map((change) => change.object_id)).toEqual([2]);
      const cursor = (await page(seen.at(-1)!.id)).page.next_cursor;
      await slow.query('COMMIT');
      // The late commit began writing first (a lower transaction id): a feed ordered by when changes
      // were written would have placed it before entity 2's, behind a reader already past it.
      const [order] = (
        await fast.query<{ first: boolean }>(
          `SELECT (SELECT max(xid) FROM changes WHERE resource = 'entity' AND object_id = 1)
                < (SELECT max(xid) FROM changes WHERE resource = 'entity' AND object_id = 2) AS first`,
        )
      ).rows;
      expect(order!.first).toBe(true);
      expect((await followToEnd(cursor)).map((change) => change.object_id)).toEqual([1]);
    } finally {
      await slow.end();
      await fast.end();
    }
  });

  it('while four importers write at once, a follower gets every change exactly once, in commit order, from any cursor', async () => {
    const start = (await page('now')).page.next_cursor;
    let writing = true;
    const followed: Change[] = [];
    const follower = (async () => {
      let cursor = start;
      // Small pages while the writers commit, then one more pass once they are done.
      for (let done = false; !done; ) {
        done = !writing;
        const next = await page(cursor, 50);
        followed.push(...next.data);
        cursor = next.page.next_cursor;
        if (next.data.length < 50 && !done) await new Promise((resolve) => setTimeout(resolve, 5));
        if (next.data.length === 50) done = false;
      }
    })();
    const writers = [0, 1, 2, 3].map(async (writer) => {
      const folder = join(dir, `writer-${writer}`);
      await mkdir(folder, { recursive: true });
      for (let round = 0; round < 6; round += 1) {
        const records = Array.from({ length: 150 }, (_, index) => ({
          id: 1_000_000 + writer * 100_000 + round * 1_000 + index,
          type: 'company',
          name: `Writer ${writer} round ${round} #${index}`,
          launch_year: 2000 + round,
        }));
        await writeFile(join(folder, 'entities.jsonl'), records.map((record) => JSON.stringify(record)).join('\n'));
        await importDirectory(app.db, folder);
      }
    });
    await Promise.all(writers);
    writing = false;
    await follower;

    const everything = await followToEnd(start);
    const created = everything.filter((change) => change.type === 'entity.created' && change.object_id >= 1_000_000);
    expect(created).toHaveLength(4 * 6 * 150);
    // The follower saw each change once and in the order a reader after the fact sees them.
    expect(followed.map((change) => change.id)).toEqual(everything.map((change) => change.id));
    expect(new Set(followed.map((change) => change.id)).size).toBe(followed.length);
    // Positions never go back in the feed's order (commit order).
    const positions = await app.db.sql.query<{ id: number; position: string }>(
      `SELECT c.object_id AS id, cc.position::text FROM changes c JOIN change_commits cc USING (xid)
        WHERE c.resource = 'entity' AND c.kind = 'created' AND c.object_id >= 1000000`,
    );
    const positionOf = new Map(positions.map((row) => [row.id, BigInt(row.position)]));
    const order = created.map((change) => positionOf.get(change.object_id)!);
    expect(order.every((position, index) => index === 0 || position >= order[index - 1]!)).toBe(true);
    // From any cursor, the rest is exactly the suffix.
    for (const at of [1, 97, 1_500, everything.length - 2]) {
      expect((await followToEnd(everything[at]!.id, 333)).map((change) => change.id)).toEqual(everything.slice(at + 1).map((change) => change.id));
    }
  });

  it('a cursor at the head is accepted while writes commit on other connections: the head only moves forward', async () => {
    const writers = await Promise.all([connect(), connect()]);
    let writing = true;
    const write = async (client: pg.Client, offset: number) => {
      for (let i = 0; writing; i += 1) await client.query('UPDATE entities SET launch_year = $1 WHERE id = $2', [1900 + (i % 100), offset + (i % 40)]);
    };
    const running = writers.map((client, index) => write(client, 10 + index * 50));
    try {
      for (let round = 0; round < 40; round += 1) {
        const head = (await page('now')).page.next_cursor;
        const next = await page(head);
        await page(next.page.next_cursor, 1);
      }
    } finally {
      writing = false;
      await Promise.all(running);
      await Promise.all(writers.map((client) => client.end()));
    }
  });
});
