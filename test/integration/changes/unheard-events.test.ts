/**
 * The webhook-events follower builds events only for the types some webhook hears
 * (src/changes/change-events.ts, `heardEventTypes`). Followed through a seed's whole feed: while no
 * webhook listens, not one event is built or sent to the outbox's statement; with a webhook hearing
 * `entity.created`, the statement is sent exactly those events, one per entity.
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

async function followToTheEnd(): Promise<number> {
  const follower = webhookEventFollower(getSchema());
  let followed = 0;
  for (let pass = await runPass(recording(), follower, 1_000); pass.changes > 0; pass = await runPass(recording(), follower, 1_000)) followed += pass.changes;
  return followed;
}

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

  sent = [];
  expect(await followToTheEnd()).toBe(changes);
  expect(sent).toEqual([]);

  await db.prisma.organization.create({ data: { id: 'acme', name: 'Acme' } });
  await db.prisma.webhook.create({
    data: { org_id: 'acme', url: 'https://hooks.example.invalid/', events: ['entity.created'], secret: 'whsec_dGVzdA==', created_by: 'tests' },
  });
  await db.sql.query("UPDATE change_followers SET position = $1, resource = $2, object_id = $3 WHERE name = 'webhook-events'", [start!.position, start!.resource, start!.object_id]);
  sent = [];
  expect(await followToTheEnd()).toBe(changes);
  const types = sent.flat();
  expect(new Set(types)).toEqual(new Set(['entity.created']));
  const entities = (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM entities'))[0]!.n;
  expect(types).toHaveLength(entities);
  const stored = (await db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events WHERE type = 'entity.created'"))[0]!.n;
  expect(stored).toBe(entities);
});
