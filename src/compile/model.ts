/**
 * Prisma's model metadata as the compiler needs it: each model's table, its scalar columns and how its
 * relations join. Fields and relations come from the datamodel generated for the Pothos plugin (a
 * public, generated file); tables from the data model's `@@map`s (src/db/datamodel.ts).
 */
import { getDatamodel } from '../db/generated/pothos-types.ts';
import { isModelName, tableOf } from '../db/datamodel.ts';

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

/** Every model's metadata. */
export function readModels(): Models {
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
    if (!isModelName(name)) throw new Error(`The data model has no columns of ${name}: run npm run generate`);
    result.set(name, { name, table: tableOf(name), scalars, relations });
  }
  return result;
}
