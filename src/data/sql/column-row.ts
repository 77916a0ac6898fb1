/**
 * The rows the bulk writers send, typed from the data model (src/db/datamodel.ts), so the seeder's
 * and the importer's rows are checked against prisma/schema.prisma rather than a copy of it.
 */
import type { ModelColumn, ModelName } from '../../db/datamodel.ts';

/** A column's value as the writers send it: money, decimals and dates as text. */
export type ValueOf<C> = C extends { type: 'Int' | 'Float' }
  ? number
  : C extends { type: 'Boolean' }
    ? boolean
    : C extends { type: 'String' | 'BigInt' | 'Decimal' | 'DateTime' }
      ? string
      : unknown;

/** Computed by the database from other columns: never written. */
export type ComputedColumn = { default: { function: 'dbgenerated' } };

type Writable<M extends ModelName> = Exclude<ModelColumn<M>, ComputedColumn | { list: true }>;

/** A column a row may leave out: it has a default, or allows NULL. The writers always name a row's id. */
type Omissible<C> = C extends { id: true } ? false : C extends { required: false } | { default: unknown } ? true : false;

/** A row of `model`: every column it must have, and the others it may give (NULL or its default when left out). */
export type ColumnRow<M extends ModelName> = {
  [C in Writable<M> as Omissible<C> extends true ? never : C['name']]: ValueOf<C>;
} & {
  [C in Writable<M> as Omissible<C> extends true ? C['name'] : never]?: ValueOf<C> | null;
};
