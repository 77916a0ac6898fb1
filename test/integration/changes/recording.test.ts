/**
 * The triggers that record changes name, per table, the columns a record does not show (a change of
 * only those is no change a client sees). The migrations write those lists and start-up derives them
 * (src/changes/trigger-columns.ts, tested in trigger-columns.test.ts); this test derives them again, on
 * its own, from the database's columns and the records' GraphQL types, so a column added later cannot
 * go unreported (or be reported under a name no record has) without it failing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_RESOURCE_NAMES, recordFields, type ChangeResource } from '../../../src/changes/resources.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.destroy());

const TABLE: Record<ChangeResource, string> = {
  entity: 'entities',
  investor: 'investors',
  founder: 'founders',
  transaction: 'funding_rounds',
  valuation: 'valuations',
  news: 'news_articles',
};

/** A trigger's arguments (pg_trigger.tgargs: NUL-separated). */
async function triggerArguments(name: string): Promise<string[]> {
  const [row] = await db.sql.query<{ args: string }>(
    `SELECT encode(t.tgargs, 'escape') AS args FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE t.tgname = $1 AND c.relnamespace = current_schema()::regnamespace`,
    [name],
  );
  return row!.args.split('\\000').filter(Boolean);
}

const braces = (list: string) => list.replace(/[{}]/g, '').split(',').filter(Boolean).sort();

async function columns(table: string): Promise<string[]> {
  const rows = await db.sql.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
    [table],
  );
  return rows.map((row) => row.column_name).sort();
}

describe('recorded columns', () => {
  const schema = getSchema();

  it.each(CHANGE_RESOURCE_NAMES)('%s: the columns left out are exactly those its record does not show', async (resource) => {
    const [, , hidden] = await triggerArguments(`${TABLE[resource]}_changes_update`);
    const fields = recordFields(schema, resource);
    const unseen = (await columns(TABLE[resource])).filter((column) => fields.fieldOf(column) === undefined);
    expect(braces(hidden!)).toEqual(unseen);
  });

  it("an investor's fields that live on its entity are the ones an entity update reports for it", async () => {
    const [, , shown] = await triggerArguments('entities_investor_changes_update');
    const investor = recordFields(schema, 'investor');
    const expected = (await columns('entities')).filter((column) => column !== 'id' && investor.fieldOf(column) === column);
    // deleted_at makes the investor deleted (or created again) with its entity.
    expect(braces(shown!)).toEqual([...expected, 'deleted_at'].sort());
  });
});

describe('one change per record per transaction', () => {
  const changesOf = async (id: number) =>
    db.sql.query<{ kind: string; changed_columns: string[] | null }>(
      `SELECT kind, changed_columns FROM changes c JOIN change_commits cc USING (xid) WHERE resource = 'entity' AND object_id = $1 ORDER BY cc.position`,
      [id],
    );

  it('merges a second write of a record into its first change', async () => {
    await seedDatabase(db, { entities: 40, seed: 4 });
    await db.sql.transaction(async (tx) => {
      await tx.query(`INSERT INTO entities (id, uuid, slug, name, type) VALUES (777001, gen_random_uuid(), 'e-777001', 'New', 'company')`);
      await tx.query(`UPDATE entities SET tagline = 'filled in' WHERE id = 777001`);
    });
    expect(await changesOf(777001)).toEqual([{ kind: 'created', changed_columns: null }]);

    await db.sql.transaction(async (tx) => {
      await tx.query(`UPDATE entities SET tagline = 'one' WHERE id = 777001`);
      await tx.query(`UPDATE entities SET launch_year = 1999 WHERE id = 777001`);
    });
    expect((await changesOf(777001))[1]).toEqual({ kind: 'updated', changed_columns: ['launch_year', 'tagline'] });

    await db.sql.transaction(async (tx) => {
      await tx.query(`UPDATE entities SET tagline = 'two' WHERE id = 777001`);
      await tx.query(`UPDATE entities SET deleted_at = now() WHERE id = 777001`);
      // Updated after its soft delete, it is still deleted.
      await tx.query(`UPDATE entities SET name = 'Gone' WHERE id = 777001`);
    });
    expect((await changesOf(777001))[2]).toEqual({ kind: 'deleted', changed_columns: ['deleted_at', 'name', 'tagline'] });
  });

  it('a seed that replaces the data notes every record it removes as deleted', async () => {
    const [before] = await db.sql.query<{ n: number; head: string }>(
      'SELECT (SELECT count(*)::int FROM entities) AS n, (SELECT position::text FROM change_clock) AS head',
    );
    await seedDatabase(db, { entities: 30, seed: 9, replace: true });
    const [after] = await db.sql.query<{ deleted: number; ids: number }>(
      `SELECT count(*)::int AS deleted, count(DISTINCT c.object_id)::int AS ids FROM changes c JOIN change_commits cc USING (xid)
        WHERE c.resource = 'entity' AND c.kind = 'deleted' AND cc.position > $1`,
      [before!.head],
    );
    expect(after).toEqual({ deleted: before!.n, ids: before!.n });
  });
});
