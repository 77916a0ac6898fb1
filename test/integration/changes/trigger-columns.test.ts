/**
 * The change triggers' column lists are derived from the records (src/changes/trigger-columns.ts):
 * on a migrated database they are what the migrations wrote, so a start rewrites nothing; when a record
 * shows a column the migrations' lists do not know (an investor field that lives on its entity, added
 * by a self-hoster), the start rewrites the trigger and the feed reports the change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../../src/api-schema.ts';
import { changeTriggerArguments, syncChangeTriggers } from '../../../src/changes/trigger-columns.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.destroy());

const INVESTOR_TRIGGER = 'entities_investor_changes_update';

async function investorChanges(id: number) {
  return db.sql.query<{ kind: string; changed_columns: string[] | null }>(
    `SELECT kind, changed_columns FROM changes c JOIN change_commits cc USING (xid)
      WHERE resource = 'investor' AND object_id = $1 ORDER BY cc.position`,
    [id],
  );
}

describe('the change triggers follow the records', () => {
  const derived = changeTriggerArguments(getSchema());

  it('names every record table’s triggers and the investor one', () => {
    expect([...derived.keys()].sort()).toEqual(
      [
        ...['entities', 'founders', 'funding_rounds', 'investors', 'news_articles', 'valuations'].flatMap((table) => [
          `${table}_changes_insert`,
          `${table}_changes_update`,
        ]),
        INVESTOR_TRIGGER,
      ].sort(),
    );
    expect(derived.get('entities_changes_update')).toEqual([
      'record',
      'entity',
      '{slug,website_domain,country_location_id,city_location_id,search_name}',
      '{updated_at}',
    ]);
  });

  it('on a migrated database, the migrations’ lists are the derived ones: nothing is rewritten', async () => {
    expect(await syncChangeTriggers(db.sql, derived)).toEqual([]);
  });

  it('rewrites a trigger whose record shows a column it does not know, once, and the feed then reports it', async () => {
    await db.sql.exec('ALTER TABLE entities ADD COLUMN zz_head_count integer');
    await db.sql.exec(`INSERT INTO entities (id, uuid, slug, name, type, is_investor) VALUES (880001, gen_random_uuid(), 'e-880001', 'Fund', 'investor', true)`);
    await db.sql.exec('INSERT INTO investors (id) VALUES (880001)');

    // Before: the investor trigger does not know the column, so its change is no investor change.
    await db.sql.exec('UPDATE entities SET zz_head_count = 10 WHERE id = 880001');
    expect((await investorChanges(880001)).map((change) => change.kind)).toEqual(['created']);

    const [, resource, shown] = derived.get(INVESTOR_TRIGGER)!;
    const wanted = new Map(derived).set(INVESTOR_TRIGGER, ['investor', resource!, shown!.replace('}', ',zz_head_count}')]);
    expect(await syncChangeTriggers(db.sql, wanted)).toEqual([INVESTOR_TRIGGER]);
    expect(await syncChangeTriggers(db.sql, wanted)).toEqual([]);

    await db.sql.exec('UPDATE entities SET zz_head_count = 11 WHERE id = 880001');
    expect((await investorChanges(880001)).at(-1)).toEqual({ kind: 'updated', changed_columns: ['zz_head_count'] });
    // The trigger is otherwise as the migration made it: an entity's own change still reports the entity.
    const [entity] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM changes WHERE resource = 'entity' AND object_id = 880001`);
    expect(entity!.n).toBeGreaterThan(0);
  });
});
