/**
 * The triggers that record changes name, per table, the columns a record does not show (a change of
 * only those is no change a client sees). Those lists are written in the migration; this test derives
 * them from the records' GraphQL types, so a column added later cannot go unreported (or be reported
 * under a name no record has) without it failing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_RESOURCE_NAMES, recordFields, type ChangeResource } from '../../../src/changes/resources.ts';
import { getSchema } from '../../../src/schema/index.ts';
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
    `SELECT encode(tgargs, 'escape') AS args FROM pg_trigger WHERE tgname = $1`,
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
    const [, hidden] = await triggerArguments(`${TABLE[resource]}_changes_update`);
    const fields = recordFields(schema, resource);
    const unseen = (await columns(TABLE[resource])).filter((column) => fields.fieldOf(column) === undefined);
    expect(braces(hidden!)).toEqual(unseen);
  });

  it("an investor's fields that live on its entity are the ones an entity update reports for it", async () => {
    const [shown] = await triggerArguments('entities_investor_changes_update');
    const investor = recordFields(schema, 'investor');
    const expected = (await columns('entities')).filter((column) => column !== 'id' && investor.fieldOf(column) === column);
    // deleted_at makes the investor deleted (or created again) with its entity.
    expect(braces(shown!)).toEqual([...expected, 'deleted_at'].sort());
  });
});
