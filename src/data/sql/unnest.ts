/**
 * Bulk writes as one statement per batch: every column travels as one array parameter and
 * `unnest($1::int[], $2::text[], ...)` turns them back into rows. This is the fastest portable way to
 * load many rows through a parameterised query on both PGlite and PostgreSQL (no COPY in PGlite's API).
 */
import type { SqlTransaction } from '../../db/client.ts';
import { modelColumns, sqlTypeOf, type ModelName } from '../../db/datamodel.ts';

export type SqlTx = SqlTransaction;

/** A column and its PostgreSQL element type (`int`, `bigint`, `text`, `bool`, `timestamptz`, ...). */
export interface Column<Row> {
  name: keyof Row & string;
  type: string;
}

/**
 * Every column of `model` that a write may set, less `except`, typed for unnest: the column list of a
 * table is its declaration in prisma/schema.prisma, never a copy. Left out: columns the database
 * generates from others, and arrays (unnest cannot carry an array per row: founder_education's writer
 * sends majors as JSON).
 */
export function columnsOf<Row>(model: ModelName, except: readonly string[] = []): Column<Row>[] {
  return modelColumns(model)
    .filter((column) => column.default?.function !== 'dbgenerated' && !column.list && !except.includes(column.name))
    .map((column) => ({ name: column.name as keyof Row & string, type: sqlTypeOf(column) }));
}

/** The columns of `model` that some row carries a value for, less `except`: the others keep their defaults. */
export function carriedColumns<Row extends object>(model: ModelName, rows: readonly Row[], except: readonly string[] = []): Column<Row>[] {
  return columnsOf<Row>(model, except).filter((column) => rows.some((row) => (row as Record<string, unknown>)[column.name] !== undefined));
}

export function q(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** `unnest($1::int[], $2::text[]) AS u("id", "name")` */
export function unnestSource<Row>(columns: readonly Column<Row>[], alias = 'u'): string {
  const arrays = columns.map((column, index) => `$${index + 1}::${column.type}[]`).join(', ');
  return `unnest(${arrays}) AS ${alias}(${columns.map((column) => q(column.name)).join(', ')})`;
}

/** Rows → one array per column, in column order: the parameters of an unnest statement. */
export function columnArrays<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): unknown[][] {
  return columns.map((column) => rows.map((row) => row[column.name] ?? null));
}

/** Plain multi-row insert; `suffix` may add `ON CONFLICT ... DO NOTHING`. */
export async function insertRows<Row>(
  tx: SqlTx,
  table: string,
  columns: readonly Column<Row>[],
  rows: readonly Row[],
  suffix = '',
): Promise<void> {
  if (rows.length === 0) return;
  const names = columns.map((column) => q(column.name)).join(', ');
  const sql = `INSERT INTO ${q(table)} (${names}) SELECT ${names} FROM ${unnestSource(columns)} ${suffix}`;
  await tx.query(sql, columnArrays(rows, columns));
}

export interface UpsertSpec<Row> {
  table: string;
  columns: readonly Column<Row>[];
  /** The record keeps the stored `created_at` when it has none, and `updated_at` moves only on change. */
  timestamps?: { created?: boolean; updated?: boolean };
}

/**
 * Insert or update by `id`, touching a stored row only when a value differs, so re-importing the same
 * file leaves rows (and `updated_at`) exactly as they were. The LEFT JOIN reads the stored row so
 * omitted timestamps can fall back to it.
 */
export function upsertByIdSql<Row>(spec: UpsertSpec<Row>): string {
  const table = q(spec.table);
  const created = spec.timestamps?.created ?? false;
  const updated = spec.timestamps?.updated ?? false;
  const names = spec.columns.map((column) => column.name);
  const data = names.filter((name) => name !== 'id' && name !== 'created_at' && name !== 'updated_at');
  const tuple = (alias: string, list: string[]) => `(${list.map((name) => `${alias}.${q(name)}`).join(', ')})`;

  const select = names.map((name) => {
    if (name === 'created_at' && created) return `COALESCE(u.${q(name)}, e.${q(name)}, now())`;
    if (name === 'updated_at' && updated) {
      const unchanged = `${tuple('e', data)} IS NOT DISTINCT FROM ${tuple('u', data)}`;
      return `COALESCE(u.${q(name)}, CASE WHEN ${unchanged} THEN e.${q(name)} END, now())`;
    }
    return `u.${q(name)}`;
  });
  const assignments = names.filter((name) => name !== 'id').map((name) => `${q(name)} = EXCLUDED.${q(name)}`);
  const stored = names.filter((name) => name !== 'id');

  const join = created || updated ? ` LEFT JOIN ${table} AS e ON e."id" = u."id"` : '';
  return [
    `INSERT INTO ${table} (${names.map(q).join(', ')})`,
    `SELECT ${select.join(', ')}`,
    `FROM ${unnestSource(spec.columns)}${join}`,
    `ON CONFLICT ("id") DO UPDATE SET ${assignments.join(', ')}`,
    `WHERE ${tuple(table, stored)} IS DISTINCT FROM ${tuple('EXCLUDED', stored)}`,
  ].join('\n');
}

export async function upsertById<Row>(tx: SqlTx, spec: UpsertSpec<Row>, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(upsertByIdSql(spec), columnArrays(rows, spec.columns));
}

/**
 * Makes the child rows of `parentIds` exactly `rows`: deletes the pairs no longer listed, inserts new ones
 * and updates changed ones (by the child table's key), so unchanged children are not rewritten.
 */
export async function replaceChildren<Row>(
  tx: SqlTx,
  spec: { table: string; parentColumn: keyof Row & string; key: readonly (keyof Row & string)[]; columns: readonly Column<Row>[] },
  parentIds: readonly number[],
  rows: readonly Row[],
): Promise<void> {
  if (parentIds.length === 0) return;
  const table = q(spec.table);
  const keyMatch = spec.key.map((name) => `k.${q(name)} = t.${q(name)}`).join(' AND ');
  const keyColumns = spec.columns.filter((column) => spec.key.includes(column.name));
  await tx.query(
    `DELETE FROM ${table} AS t WHERE t.${q(spec.parentColumn)} = ANY($${keyColumns.length + 1}::int[])
       AND NOT EXISTS (SELECT 1 FROM ${unnestSource(keyColumns, 'k')} WHERE ${keyMatch})`,
    [...columnArrays(rows, keyColumns), parentIds],
  );
  if (rows.length === 0) return;
  const others = spec.columns.filter((column) => !spec.key.includes(column.name)).map((column) => column.name);
  const conflict = others.length
    ? `ON CONFLICT (${spec.key.map(q).join(', ')}) DO UPDATE SET ${others.map((n) => `${q(n)} = EXCLUDED.${q(n)}`).join(', ')}
       WHERE (${others.map((n) => `${table}.${q(n)}`).join(', ')}) IS DISTINCT FROM (${others.map((n) => `EXCLUDED.${q(n)}`).join(', ')})`
    : `ON CONFLICT (${spec.key.map(q).join(', ')}) DO NOTHING`;
  await insertRows(tx, spec.table, spec.columns, rows, conflict);
}
