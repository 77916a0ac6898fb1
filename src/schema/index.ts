/** Builds the GraphQL schema from every resource file. Import order registers the types and resources. */
import { printSchema, type GraphQLSchema } from 'graphql';
import { assertAccessDeclared } from '../auth/permissions.ts';
import { assertTenancyDeclared } from '../auth/tenancy.ts';
import { getDatamodel } from '../db/generated/pothos-types.ts';
import { builder } from './builder.ts';
import { declaredTenantRules } from './resource.ts';
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
import './ecosystem.ts';
import './landscape.ts';
import './team.ts';
import './invitation.ts';
import './filters.ts';
import './usage.ts';
import './webhook.ts';
// After every resource: the aggregates read their read permissions.
import './aggregate.ts';
import './changes.ts';
import './search.ts';
import './match.ts';

let schema: GraphQLSchema | undefined;

/** The schema, once every field and type it serves has declared who may read it, and every organisation-owned model its tenant rule. */
export function getSchema(): GraphQLSchema {
  if (!schema) {
    const built = builder.toSchema({ sortSchema: false });
    assertAccessDeclared(built);
    assertTenancyDeclared(getDatamodel().datamodel, declaredTenantRules());
    schema = built;
  }
  return schema;
}

/** The SDL committed as schema.graphql, in definition order (fields read as the spec lists them). */
export function printSchemaSdl(): string {
  return `${printSchema(getSchema())}\n`;
}
