/**
 * Prisma's data model as the derivations read it: each model's table and scalar columns with their
 * native types (src/db/generated/columns.ts, from scripts/prisma-columns.mjs) and how its relations
 * lead to other models (the datamodel generated for Pothos). A column is declared once, in
 * prisma/schema.prisma; the import format, the writers' and the seeder's column lists, the filter
 * registry's value kinds and the change triggers read it from here.
 */
import type { GeneratedColumn } from './columns-type.ts';
import { MODELS } from './generated/columns.ts';
import { getDatamodel } from './generated/pothos-types.ts';

export type { GeneratedColumn } from './columns-type.ts';
export type ModelName = keyof typeof MODELS;
/** The columns of a model as literal types, for types derived from the data model. */
export type ModelColumn<M extends ModelName> = (typeof MODELS)[M]['columns'][number];

const datamodel = getDatamodel().datamodel.models;

export function isModelName(name: string): name is ModelName {
  return Object.hasOwn(MODELS, name);
}

export function tableOf(model: ModelName): string {
  return MODELS[model].table;
}

/** The model's scalar columns, in the order prisma/schema.prisma declares them. */
export function modelColumns(model: ModelName): readonly GeneratedColumn[] {
  return MODELS[model].columns;
}

/** The model a relation of `model` leads to. */
export function relatedModel(model: ModelName, relation: string): ModelName {
  const field = datamodel[model]?.fields.find((candidate) => candidate.name === relation && candidate.kind === 'object');
  if (!field || !isModelName(field.type)) throw new Error(`${model} has no relation ${relation}`);
  return field.type;
}

/** The column at the end of a relation path (`['entity']`, `name` from Investor: Entity.name). */
export function columnAlong(model: ModelName, relations: readonly string[], name: string): GeneratedColumn & { model: ModelName } {
  const owner = relations.reduce<ModelName>(relatedModel, model);
  const column = modelColumns(owner).find((candidate) => candidate.name === name);
  if (!column) throw new Error(`${owner} has no column ${name}`);
  return { ...column, model: owner };
}

const SQL_TYPES: Readonly<Record<string, string>> = {
  Int: 'int',
  BigInt: 'bigint',
  Float: 'float8',
  Decimal: 'numeric',
  Boolean: 'bool',
  String: 'text',
  DateTime: 'timestamptz',
  Json: 'jsonb',
};

/** The column's PostgreSQL type, as a statement casts a parameter to write it. */
export function sqlTypeOf(column: GeneratedColumn): string {
  const base =
    column.nativeType === 'Uuid' ? 'uuid' : column.nativeType === 'Date' ? 'date' : SQL_TYPES[column.type];
  if (!base) throw new Error(`No SQL type for ${column.name} (${column.type})`);
  return column.list ? `${base}[]` : base;
}
