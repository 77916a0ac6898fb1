// The hand-written migrations and prisma/schema.prisma must describe the same database: every model's
// table exists with exactly its scalar fields, of matching type and nullability, and Prisma can read
// every model. Migrating is idempotent (the two-instance race is in test/postgres/).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { getDatamodel } from '../../src/db/generated/pothos-types.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

const SCHEMA = readFileSync(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8');

/** model name → table name, from each model block's @@map. */
function tableNames(): Map<string, string> {
  const tables = new Map<string, string>();
  for (const [, model, body] of SCHEMA.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const mapped = /@@map\("([^"]+)"\)/.exec(body!);
    tables.set(model!, mapped ? mapped[1]! : model!);
  }
  return tables;
}

const POSTGRES_TYPES: Record<string, string[]> = {
  Int: ['integer'],
  String: ['text', 'uuid'],
  Boolean: ['boolean'],
  DateTime: ['timestamp with time zone', 'date'],
  BigInt: ['bigint'],
  Float: ['double precision'],
  Decimal: ['numeric'],
  Json: ['jsonb'],
  Bytes: ['bytea'],
};

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
}

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.destroy();
});

describe('migrations agree with schema.prisma', () => {
  const models = Object.entries(getDatamodel().datamodel.models);
  const tables = tableNames();

  it('covers every model', () => {
    expect(models.length).toBeGreaterThan(20);
    expect([...tables.keys()].sort()).toEqual(models.map(([name]) => name).sort());
  });

  it.each(models)('%s: same columns, types and nullability', async (model, { fields }) => {
    const columns = await db.sql.query<Column>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1`,
      [tables.get(model)],
    );
    const scalars = fields.filter((field) => field.kind === 'scalar' || field.kind === 'enum');
    expect(columns.map((column) => column.column_name).sort()).toEqual(scalars.map((field) => field.name).sort());
    for (const field of scalars) {
      const column = columns.find((candidate) => candidate.column_name === field.name)!;
      if (field.isList) {
        expect(column.data_type, `${model}.${field.name}`).toBe('ARRAY');
        continue;
      }
      expect(POSTGRES_TYPES[field.type], `${model}.${field.name} type`).toContain(column.data_type);
      expect(column.is_nullable, `${model}.${field.name} nullability`).toBe(field.isRequired ? 'NO' : 'YES');
    }
  });

  it('has no table that no model describes (a partition is part of its table)', async () => {
    const rows = await db.sql.query<{ table_name: string }>(
      `SELECT relname AS table_name FROM pg_class
        WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition`,
    );
    expect(rows.map((row) => row.table_name).sort()).toEqual([...tables.values(), '_migrations'].sort());
  });

  it('lets Prisma read every model with all its scalar fields', async () => {
    const client = db.prisma as unknown as Record<string, { findFirst(args: object): Promise<unknown> }>;
    for (const [model, { fields }] of models) {
      const select = Object.fromEntries(
        fields.filter((field) => field.kind === 'scalar').map((field) => [field.name, true]),
      );
      const delegate = client[model.charAt(0).toLowerCase() + model.slice(1)]!;
      // A migration may seed a row (the change clock); reading it back with every field is what counts.
      const row = await delegate.findFirst({ select });
      if (row !== null) expect(Object.keys(row as object).sort(), model).toEqual(Object.keys(select).sort());
    }
  });
});

describe('migrate', () => {
  it('is idempotent and records what it applied', async () => {
    expect(await migrate(db.sql)).toEqual([]);
    const applied = await db.sql.query<{ name: string }>('SELECT name FROM "_migrations" ORDER BY name');
    expect(applied.map((row) => row.name)).toEqual((await readMigrations()).map((migration) => migration.name));
  });

  it('refuses a migration that changed after it was applied', async () => {
    const [first] = await readMigrations();
    await expect(migrate(db.sql, [{ ...first!, checksum: 'changed' }])).rejects.toThrow(/changed after it was applied/);
  });
});
