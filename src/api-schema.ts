/**
 * The API's GraphQL schema, built from every resource file; import order registers the types, fields
 * and resources (the printed SDL and the REST routes follow it). It sits above the operations: the
 * data resources live in src/schema/, and the resources whose fields run an operation (aggregates,
 * changes, usage, management) declare them beside it, on the same builder, in `*-schema.ts` files.
 */
import { printSchema, type GraphQLSchema } from 'graphql';
import { assertAccessDeclared } from './auth/permissions.ts';
import { assertTenancyDeclared } from './auth/tenancy.ts';
import { getDatamodel } from './db/generated/pothos-types.ts';
import { installFieldRegistries } from './filter/index.ts';
import { builder } from './schema/builder.ts';
import { deriveFilterRegistries } from './schema/filter-registries.ts';
import { declaredTenantRules } from './schema/resource.ts';
import './schema/scalars.ts';
import './schema/list.ts';
import './schema/tag.ts';
import './schema/founder.ts';
import './schema/entity.ts';
import './schema/api-key.ts';
import './schema/investor.ts';
import './schema/transaction.ts';
import './schema/valuation.ts';
import './schema/news.ts';
import './management/ecosystem-schema.ts';
import './management/landscape-schema.ts';
import './management/team-schema.ts';
import './management/invitation-schema.ts';
import './schema/filters.ts';
import './usage/usage-schema.ts';
import './management/webhook-schema.ts';
import './management/webhook-reads-schema.ts';
// After every resource: the aggregates read their read permissions.
import './aggregate/aggregate-schema.ts';
import './changes/changes-schema.ts';
import './compile/similar-schema.ts';
import './search/search-schema.ts';
import './match/match-schema.ts';
import './exports/export-schema.ts';

let schema: GraphQLSchema | undefined;

/**
 * The schema, once every field and type it serves has declared who may read it, and every
 * organisation-owned model its tenant rule. Building it installs the filter registries its record
 * types declare (src/schema/filter-registries.ts): filters work from then on.
 */
export function getSchema(): GraphQLSchema {
  if (!schema) {
    const built = builder.toSchema({ sortSchema: false });
    assertAccessDeclared(built);
    assertTenancyDeclared(getDatamodel().datamodel, declaredTenantRules());
    installFieldRegistries(deriveFilterRegistries(built));
    schema = built;
  }
  return schema;
}

/** The SDL committed as schema.graphql, in definition order (fields read as the spec lists them). */
export function printSchemaSdl(): string {
  return `${printSchema(getSchema())}\n`;
}
