/** Builds the GraphQL schema from every resource file. Import order registers the types. */
import { printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import './list.ts';
import './tag.ts';
import './founder.ts';
import './entity.ts';
import './api-key.ts';
import './investor.ts';
import './transaction.ts';
import './valuation.ts';
import './news.ts';
import './filters.ts';
import './usage.ts';

let schema: GraphQLSchema | undefined;

export function getSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: false });
  return schema;
}

/** The SDL committed as schema.graphql, in definition order (fields read as the spec lists them). */
export function printSchemaSdl(): string {
  return `${printSchema(getSchema())}\n`;
}
