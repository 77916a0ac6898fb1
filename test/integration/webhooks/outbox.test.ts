// enqueueEvents, as the change recorder and ecosystem membership call it inside their writing
// transactions: fan-out to the subscribed, live webhooks of every organisation; ecosystem events only
// to the ecosystem's organisation and its ecosystem_ids; a repeated event id adds nothing; a rolled-back
// transaction leaves nothing; deliverers hear of new deliveries at commit. No app runs here, so no
// deliverer takes the rows away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERIES_CHANNEL, enqueueEvents, type OutboxEvent } from '../../../src/changes/outbox.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { waitUntil } from './support.ts';

let db: TestDatabase;
const hooks: Record<string, number> = {};
const ecosystems: Record<string, number> = {};

async function webhook(name: string, org: string, events: string[], extra: { ecosystem_ids?: number[]; enabled?: boolean; is_active?: boolean } = {}) {
  const { id } = await db.prisma.webhook.create({
    data: { org_id: org, url: `https://${name}.example.invalid/`, events, secret: 'whsec_dGVzdA==', created_by: 'tests', ...extra },
  });
  hooks[name] = id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await db.prisma.organization.createMany({ data: [{ id: 'acme', name: 'Acme' }, { id: 'globex', name: 'Globex' }] });
  for (const [name, org] of [['berlin', 'acme'], ['paris', 'acme'], ['tokyo', 'globex']] as const) {
    ecosystems[name] = (await db.prisma.ecosystem.create({ data: { org_id: org, slug: name, name, filter: 'is_company:true' } })).id;
  }
  await webhook('acmeEntities', 'acme', ['entity.created']);
  await webhook('acmeBoth', 'acme', ['entity.created', 'entity.updated']);
  await webhook('acmeInvestors', 'acme', ['investor.created']);
  await webhook('acmeDisabled', 'acme', ['entity.created'], { enabled: false });
  await webhook('acmeDeleted', 'acme', ['entity.created'], { is_active: false });
  await webhook('globexEntities', 'globex', ['entity.created']);
  await webhook('acmeAllEcosystems', 'acme', ['ecosystem.entity_entered']);
  await webhook('acmeParis', 'acme', ['ecosystem.entity_entered', 'ecosystem.entity_left'], { ecosystem_ids: [ecosystems.paris!] });
  await webhook('globexAllEcosystems', 'globex', ['ecosystem.entity_entered']);
});

afterAll(async () => {
  await db.destroy();
});

let sequence = 0;
const change = (type: OutboxEvent['type'], objectId = 1): OutboxEvent => {
  const id = `chg_${++sequence}`;
  return { id, type, occurredAt: new Date('2026-11-24T10:00:00Z'), data: { id, type, object_id: objectId, occurred_at: '2026-11-24T10:00:00.000Z', changed_fields: ['name'] } };
};
const entered = (ecosystem: string, entityId = 7): OutboxEvent => ({
  id: `eco_${++sequence}`,
  type: 'ecosystem.entity_entered',
  occurredAt: new Date(),
  data: { ecosystem_id: ecosystems[ecosystem], entity_id: entityId },
  ecosystemId: ecosystems[ecosystem]!,
});

const enqueue = (events: OutboxEvent[]) => db.sql.transaction((tx) => enqueueEvents(tx, events));

async function receivers(eventId: string): Promise<string[]> {
  const rows = await db.sql.query<{ webhook_id: number }>('SELECT webhook_id FROM webhook_deliveries WHERE event_id = $1', [eventId]);
  const names = Object.fromEntries(Object.entries(hooks).map(([name, id]) => [id, name]));
  return rows.map((row) => names[row.webhook_id]!).sort();
}

describe('enqueueEvents', () => {
  it('creates one pending delivery per live webhook subscribed to the type, of every organisation', async () => {
    const event = change('entity.created');
    expect(await enqueue([event])).toBe(3);
    expect(await receivers(event.id)).toEqual(['acmeBoth', 'acmeEntities', 'globexEntities']);
    const updated = change('entity.updated');
    expect(await enqueue([updated])).toBe(1);
    expect(await receivers(updated.id)).toEqual(['acmeBoth']);
    const unheard = change('founder.deleted');
    expect(await enqueue([unheard])).toBe(0);
    // The event is stored with what the body will carry.
    const [stored] = await db.sql.query<{ type: string; data: unknown; occurred_at: Date }>('SELECT type, data, occurred_at FROM webhook_events WHERE id = $1', [event.id]);
    expect(stored).toEqual({ type: 'entity.created', data: event.data, occurred_at: event.occurredAt });
    const [delivery] = await db.sql.query<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1 LIMIT 1', [event.id]);
    expect(delivery).toEqual({ status: 'pending', attempts: 0 });
  });

  it("sends ecosystem events to the ecosystem's organisation only, and only to webhooks without ecosystem_ids or naming it", async () => {
    const berlin = entered('berlin');
    const paris = entered('paris');
    const tokyo = entered('tokyo');
    expect(await enqueue([berlin, paris, tokyo])).toBe(4);
    expect(await receivers(berlin.id)).toEqual(['acmeAllEcosystems']);
    expect(await receivers(paris.id)).toEqual(['acmeAllEcosystems', 'acmeParis']);
    expect(await receivers(tokyo.id)).toEqual(['globexAllEcosystems']);
    const left: OutboxEvent = { ...entered('paris'), type: 'ecosystem.entity_left' };
    expect(await enqueue([left])).toBe(1);
    expect(await receivers(left.id)).toEqual(['acmeParis']);
  });

  it('skips an event id already enqueued, in a later call or twice in one', async () => {
    const event = change('entity.created');
    expect(await enqueue([event, { ...event }])).toBe(3);
    expect(await enqueue([event])).toBe(0);
    expect(await receivers(event.id)).toHaveLength(3);
    const [{ count }] = (await db.sql.query<{ count: number }>('SELECT count(*)::int AS count FROM webhook_events WHERE id = $1', [event.id])) as [{ count: number }];
    expect(count).toBe(1);
  });

  it('stores no event that no webhook hears (an import is not copied into the outbox)', async () => {
    const unheard = change('valuation.deleted', 424242);
    expect(await enqueue([unheard])).toBe(0);
    expect(await db.sql.query('SELECT 1 FROM webhook_events WHERE id = $1', [unheard.id])).toEqual([]);
  });

  it('leaves nothing when the writing transaction rolls back', async () => {
    const event = change('entity.created');
    await expect(
      db.sql.transaction(async (tx) => {
        expect(await enqueueEvents(tx, [event])).toBe(3);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await db.sql.query('SELECT 1 FROM webhook_events WHERE id = $1', [event.id])).toEqual([]);
    expect(await receivers(event.id)).toEqual([]);
  });

  it('enqueues a large batch in one statement (2,000 events → 6,000 deliveries)', async () => {
    const events = Array.from({ length: 2000 }, (_, index) => change('entity.created', index));
    const statements: string[] = [];
    const counting = {
      exec: (text: string) => Promise.reject(new Error(`unexpected exec ${text}`)),
      query: <Row,>(text: string, params?: unknown[]) => {
        statements.push(text);
        return db.sql.query<Row>(text, params);
      },
    };
    expect(await enqueueEvents(counting, events)).toBe(6000);
    // The insert of events and deliveries, then the NOTIFY.
    expect(statements).toHaveLength(2);
    expect(statements[1]).toContain('pg_notify');
  });

  it('wakes listening deliverers when the transaction commits, not before and not on rollback', async () => {
    const heard: string[] = [];
    const subscription = db.sql.listen!(DELIVERIES_CHANNEL, { onNotification: () => heard.push('notified'), onReady: () => undefined, onLost: () => undefined });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // LISTEN is in place
      await db.sql.transaction(async (tx) => {
        await enqueueEvents(tx, [change('entity.created')]);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(heard).toEqual([]);
      });
      await waitUntil(() => heard.length === 1, 5_000, 'the notification');
      await db.sql.transaction(async (tx) => {
        await enqueueEvents(tx, [change('entity.created')]);
        throw new Error('rolled back');
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toEqual(['notified']);
    } finally {
      await subscription.close();
    }
  });
});
