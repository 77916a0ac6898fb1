/**
 * The import format's validator of each column of a model, read from the column's type in the data
 * model (src/db/datamodel.ts): a new column is importable, and a value of the wrong type is refused
 * naming it, with no edit here. A resource's schema adds what is really about one field (an
 * enumeration, a range, how a website is read) and the related records it nests.
 */
import { z } from 'zod';
import { modelColumns, type GeneratedColumn, type ModelColumn, type ModelName } from '../../../db/datamodel.ts';
import type { ComputedColumn, ValueOf } from '../../sql/column-row.ts';
import { calendarDate, dateTime, decimalText, integer, recordId, requiredText, uuid, wholeDollars } from './common.ts';

const INT4_MAX = 2_147_483_647;

/** A value of the column's type, not null. */
function valueOf(column: GeneratedColumn): z.ZodType {
  switch (column.type) {
    case 'String':
      return column.required && column.default === undefined ? requiredText : z.string();
    case 'Int':
      return integer().min(-INT4_MAX).max(INT4_MAX);
    case 'BigInt':
      return wholeDollars;
    case 'Float':
      return z.number();
    case 'Decimal':
      return decimalText;
    case 'Boolean':
      return z.boolean();
    case 'DateTime':
      return column.nativeType === 'Date' ? calendarDate : dateTime;
    default:
      return z.unknown();
  }
}

/**
 * What a record may hold for `column`: a value of its type, or, where the column has a default or
 * allows none, nothing or null, which is stored as that default (a literal) or null (a default the
 * database computes, such as now(), is applied by the writer).
 */
function validatorOf(column: GeneratedColumn): z.ZodType {
  if (column.id) return recordId;
  // Generated from the id when absent (src/data/import/writers), so re-importing keeps it.
  if (column.nativeType === 'Uuid') return uuid;
  if (column.required && column.default === undefined) return valueOf(column);
  const fallback = column.default?.value ?? null;
  return valueOf(column)
    .nullish()
    .transform((value) => value ?? fallback);
}

type Imported<C> = C extends { id: true }
  ? number
  : C extends { nativeType: 'Uuid' }
    ? string | undefined
    : C extends { required: true; default: { value: unknown } }
      ? ValueOf<C>
      : C extends { required: true; default?: undefined }
        ? ValueOf<C>
        : ValueOf<C> | null;

/** The record `columnFields(model, derived)` validates, typed from the data model. */
export type ColumnRecord<M extends ModelName, Derived extends string = never> = {
  [C in ModelColumn<M> as C extends ComputedColumn ? never : Exclude<C['name'], Derived>]: Imported<C>;
};

/**
 * A validator per column of `model` that a record may carry: every scalar column but the database's
 * own (generated from others) and `derived`, which the importer computes itself.
 */
export function columnFields<M extends ModelName, Derived extends string = never>(
  model: M,
  derived: readonly Derived[] = [],
): { [K in keyof ColumnRecord<M, Derived>]: z.ZodType<ColumnRecord<M, Derived>[K], unknown> } {
  const fields: Record<string, z.ZodType> = {};
  for (const column of modelColumns(model)) {
    if (column.default?.function === 'dbgenerated' || (derived as readonly string[]).includes(column.name)) continue;
    fields[column.name] = validatorOf(column);
  }
  return fields as never;
}
