/**
 * Every root field (Query and Mutation) is nullable, whatever its declaration says: an error in one
 * root field then nulls that field only, and the response keeps the other fields' data (GraphQL's
 * null propagation would otherwise null the whole `data`). Inside a record, fields keep their
 * declared nullability. A Pothos plugin, so the rule lives here once instead of on every root field.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';

const ROOTS = new Set(['Query', 'Mutation']);

export class NullableRootsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    if (!ROOTS.has(fieldConfig.kind)) return fieldConfig;
    return { ...fieldConfig, type: { ...fieldConfig.type, nullable: true } };
  }
}

export const NULLABLE_ROOTS = 'nullableRoots';

declare global {
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      nullableRoots: NullableRootsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin(NULLABLE_ROOTS, NullableRootsPlugin);
