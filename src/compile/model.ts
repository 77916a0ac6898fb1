/**
 * Prisma's model metadata as the compiler needs it: each model's table, its scalar columns and how its
 * relations join. Relations come from the datamodel the Pothos plugin is built with; table names from
 * the Prisma client's runtime data model (the `@@map` names Prisma itself writes into its SQL), so the
 * compiled statements and Prisma's own name the same tables.
 */
import type { PrismaClient } from '../db/client.ts';
import { getDatamodel } from '../db/generated/pothos-types.ts';

export interface Relation {
  name: string;
  model: string;
  isList: boolean;
  /** `outer.from[i] = inner.to[i]` joins the related rows to this one. */
  from: readonly string[];
  to: readonly string[];
}

export interface Model {
  name: string;
  table: string;
  /** Scalar field → its Prisma type (`Int`, `String`, `DateTime`, `BigInt`, `Decimal`, ...). */
  scalars: ReadonlyMap<string, string>;
  relations: ReadonlyMap<string, Relation>;
}

export type Models = ReadonlyMap<string, Model>;

interface RuntimeDataModel {
  models: Record<string, { dbName: string | null }>;
}

/** Every model's metadata, read once from the client the request runs on. */
export function readModels(prisma: PrismaClient): Models {
  const runtime = (prisma as unknown as { _runtimeDataModel?: RuntimeDataModel })._runtimeDataModel;
  if (!runtime) throw new Error('compile: the Prisma client carries no runtime data model (did the Prisma version change?)');
  const { models } = getDatamodel().datamodel;
  const result = new Map<string, Model>();
  for (const [name, model] of Object.entries(models)) {
    const scalars = new Map<string, string>();
    const relations = new Map<string, Relation>();
    for (const field of model.fields) {
      if (field.kind !== 'object') {
        scalars.set(field.name, field.type);
        continue;
      }
      const owning = field.relationFromFields?.length ? field : undefined;
      const opposite = models[field.type]!.fields.find((other) => other.relationName === field.relationName && other !== field);
      // Every relation in this schema references the other side's `id`.
      const relation: Relation = owning
        ? { name: field.name, model: field.type, isList: field.isList, from: owning.relationFromFields!, to: ['id'] }
        : { name: field.name, model: field.type, isList: field.isList, from: ['id'], to: opposite?.relationFromFields ?? [] };
      if (relation.to.length === 0) continue;
      relations.set(field.name, relation);
    }
    result.set(name, { name, table: runtime.models[name]?.dbName ?? name, scalars, relations });
  }
  return result;
}
