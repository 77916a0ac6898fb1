/**
 * The webhook-events follower reads only the changes some live webhook hears: of a type it subscribes
 * to, committed after its creation (src/changes/change-events.ts). Followed through a seed's whole
 * feed: while no webhook listens, one pass moves the follower to the head, reading nothing and sending
 * nothing to the outbox's statement; a webhook created after the seed changes nothing of that; with a
 * webhook from before the seed hearing `entity.created`, the statement is sent exactly those events,
 * one per entity.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookEventFollower } from '../../../src/changes/change-events.ts';
import { runPass } from '../../../src/changes/follower.ts';
import type { SqlClient } from '../../../src/db/client.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
/** The event types each outbox statement was sent, one array per statement. */
let sent: string[][] = [];

/** The database, with the outbox's statement (enqueueEvents) recorded as transactions run it. */
const recording = (): SqlClient => ({
  ...db.sql,
  transaction: (work) =>
    db.sql.transaction((tx) =>
      work({
        ...tx,
        query: async (text, params) => {
          if (text.includes('jsonb_to_recordset')) sent.push((JSON.parse(String(params![0])) as { type: string }[]).map((event) => event.type));
          return tx.query(text, params);
        },
      }),
    ),
});

/** Passes until the follower stands at the head; how many changes it read and in how many passes. */
async function followToTheEnd(): Promise<{ changes: number; passes: number }> {
  const follower = webhookEventFollower(getSchema());
  let followed = 0;
  let passes = 0;
  for (let pass = { full: true }; pass.full; passes += 1) {
    const ran = await runPass(recording(), follower, 1_000);
    followed += ran.changes;
    pass = ran;
  }
  const [place] = await db.sql.query<{ position: string; resource: string }>("SELECT position::text, resource FROM change_followers WHERE name = 'webhook-events'");
  const [head] = await db.sql.query<{ position: string }>('SELECT position::text FROM change_clock');
  expect(place).toEqual({ position: head!.position, resource: '~' });
  return { changes: followed, passes };
}

const resetFollower = (start: { position: string; resource: string; object_id: number }) =>
  db.sql.query("UPDATE change_followers SET position = $1, resource = $2, object_id = $3 WHERE name = 'webhook-events'", [start.position, start.resource, start.object_id]);

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 400 });
}, 120_000);

afterAll(async () => {
  await db?.destroy();
});

it('builds no event while no webhook listens, and only the heard ones when one does', async () => {
  const [start] = await db.sql.query<{ position: string; resource: string; object_id: number }>(
    "SELECT position::text, resource, object_id FROM change_followers WHERE name = 'webhook-events'",
  );
  const changes = (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM changes'))[0]!.n;

  expect(changes).toBeGreaterThan(2_000);

  sent = [];
  expect(await followToTheEnd()).toEqual({ changes: 0, passes: 1 });
  expect(sent).toEqual([]);

  await db.prisma.organization.create({ data: { id: 'acme', name: 'Acme' } });
  const [head] = await db.sql.query<{ position: string }>('SELECT position::text FROM change_clock');
  const webhook = { org_id: 'acme', url: 'https://hooks.example.invalid/', events: ['entity.created'], secret: 'whsec_dGVzdA==', created_by: 'tests' };
  // Created after the seed (at the head): none of it is heard, nothing is read.
  await db.prisma.webhook.create({ data: { ...webhook, from_position: BigInt(head!.position) } });
  await resetFollower(start!);
  sent = [];
  expect(await followToTheEnd()).toEqual({ changes: 0, passes: 1 });
  expect(sent).toEqual([]);

  // One from before the seed hears its entity.created changes, and only those are read.
  await db.prisma.webhook.create({ data: { ...webhook, from_position: 0n } });
  await resetFollower(start!);
  sent = [];
  const entities = (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM entities'))[0]!.n;
  expect((await followToTheEnd()).changes).toBe(entities);
  const types = sent.flat();
  expect(new Set(types)).toEqual(new Set(['entity.created']));
  expect(types).toHaveLength(entities);
  const stored = (await db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events WHERE type = 'entity.created'"))[0]!.n;
  expect(stored).toBe(entities);
});
