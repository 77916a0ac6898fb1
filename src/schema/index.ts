/** Builds the GraphQL schema from every resource file. Import order registers the types. */
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import './list.ts';
import './tag.ts';
import './founder.ts';
import './entity.ts';

let schema: GraphQLSchema | undefined;

export function getSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: false });
  return schema;
}

/** The SDL committed as schema.graphql (sorted, so the file diffs cleanly). */
export function printSchemaSdl(): string {
  return `${printSchema(lexicographicSortSchema(getSchema()))}\n`;
}
