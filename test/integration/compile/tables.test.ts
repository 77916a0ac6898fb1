/**
 * The tables the compiled reads name (the data model's `@@map`s, src/db/datamodel.ts) are the ones the migrations create, with a
 * column for every scalar field of their model: a model renamed, mapped elsewhere or given a field
 * without a column fails here, not in a customer's query.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { getDatamodel } from '../../../src/db/generated/pothos-types.ts';
import { tableOf, type ModelName } from '../../../src/db/datamodel.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.destroy();
});

test('every model names a table of its own, and every scalar field is a column there', async () => {
  const rows = await db.sql.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
  );
  const columns = new Map<string, Set<string>>();
  for (const row of rows) columns.set(row.table_name, (columns.get(row.table_name) ?? new Set()).add(row.column_name));

  const { models } = getDatamodel().datamodel;
  const tables = Object.keys(models).map((model) => tableOf(model as ModelName));
  expect(new Set(tables).size).toBe(Object.keys(models).length);
  for (const [model, { fields }] of Object.entries(models)) {
    const table = tableOf(model as ModelName);
    const scalars = fields.filter((field) => field.kind !== 'object').map((field) => field.name);
    expect([...(columns.get(table) ?? [])].filter((name) => scalars.includes(name)).sort(), `${model} → ${table}`).toEqual(scalars.sort());
  }
});
