/**
 * The shape of src/db/generated/columns.ts, which scripts/prisma-columns.mjs writes from Prisma's DMMF:
 * each model's table and scalar columns with what the Pothos datamodel leaves out.
 */
export interface GeneratedColumn {
  readonly name: string;
  /** Prisma's scalar type: `Int`, `BigInt`, `Float`, `Decimal`, `String`, `Boolean`, `DateTime`, `Json`. */
  readonly type: string;
  /** The `@db.` attribute's type, e.g. `Uuid`, `Date`, `Timestamptz`. */
  readonly nativeType?: string;
  readonly required: boolean;
  readonly list?: boolean;
  readonly id?: boolean;
  readonly updatedAt?: boolean;
  /** `{function: 'now' | 'autoincrement' | 'dbgenerated' | ...}` or `{value}`. */
  readonly default?: { readonly function?: string; readonly value?: unknown };
}

export interface GeneratedModel {
  readonly table: string;
  readonly columns: readonly GeneratedColumn[];
}

export type GeneratedModels = Readonly<Record<string, GeneratedModel>>;
