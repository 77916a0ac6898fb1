/** The single Pothos builder. Resource files add their types to it; index.ts builds the schema. */
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../db/generated/pothos-types.ts';
import { getDatamodel } from '../db/generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';
import { NULLABLE_ROOTS } from './nullable-roots.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: Date; Output: Date | string };
    /** Whole US dollars; BigInt in the database, a JSON number on the wire (safe up to 9e15). */
    Money: { Input: bigint; Output: bigint | number };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  plugins: [PrismaPlugin, NULLABLE_ROOTS],
  prisma: {
    client: (context) => context.prisma,
    dmmf: getDatamodel(),
    // Every relation is exposed deliberately through a resource file; nothing leaks by default.
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({});
// Resource files add mutations with builder.mutationFields (api-key.ts has the first ones).
builder.mutationType({});

/** The builder's resolved type parameters, for helpers that take refs of any resource. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
