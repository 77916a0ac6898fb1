/**
 * The OpenAPI 3.1 document, generated at start-up from the sources of truth: paths and methods from
 * the REST route table, records from the GraphQL selections of the routes' operations, permissions
 * and list limits from the resource declarations (src/schema/resource.ts), error codes from STATUS_BY_CODE.
 * Nothing here is maintained by hand except the few paths no table describes (fixed-paths.ts).
 */
import { readFileSync } from 'node:fs';
import { isObjectType, Kind, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Config } from '../config.ts';
import { packagePath } from '../package-root.ts';
import type { PreparedOperations } from '../rest/operations.ts';
import type { HttpMethod, Route } from '../rest/routes.ts';
import { selectableRecordFragment, withSelectableFields } from './field-selection.ts';
import { FIXED_SCHEMAS, FIXED_TAGS, fixedPaths } from './fixed-paths.ts';
import { recordExample, recordFields } from '../schema/record-fields.ts';
import { declaredResources } from '../schema/resource.ts';
import { scopeDescriptions } from './permissions.ts';
import { ERROR_SCHEMAS, errorResponseComponents, HEADERS } from './responses.ts';
import { addParameterExamples } from './parameter-examples.ts';
import { routeOperation } from './route-operation.ts';
import type { HttpVerb, JsonSchema, JsonValue, OpenApiDocument, PathItem, SecuritySchemeObject } from './types.ts';

export interface OpenApiSources {
  schema: GraphQLSchema;
  operations: PreparedOperations;
  routes: readonly Route[];
  config: Config;
}

const VERBS: Readonly<Record<HttpMethod, HttpVerb>> = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'delete' };

interface RestPaths {
  paths: Record<string, PathItem>;
  /** Permission → the `METHOD /path`s that need it, for the OAuth2 scope descriptions. */
  usedBy: Map<string, string[]>;
  schemas: Map<string, JsonSchema>;
}

function restPaths({ schema, operations, routes }: OpenApiSources): RestPaths {
  const paths: Record<string, PathItem> = {};
  const usedBy = new Map<string, string[]>();
  const schemas = new Map<string, JsonSchema>();
  const selectable = new Set<string>();
  for (const route of routes) {
    const document = operations.get(route.operation);
    if (!document) throw new Error(`OpenAPI: route ${route.id} names unknown operation ${route.operation}`);
    const { operation, permission } = routeOperation(route, document, schema, schemas);
    const fragment = selectableRecordFragment(document);
    if (fragment) selectable.add(fragment);
    (paths[route.path] ??= {})[VERBS[route.method]] = operation;
    for (const name of permission.permissions) usedBy.set(name, [...(usedBy.get(name) ?? []), `${route.method} ${route.path}`]);
  }
  for (const [path, item] of Object.entries(paths)) {
    const allow = routes.filter((route) => route.path === path).map((route) => route.method).join(', ');
    item.description = `Other methods: 405 \`METHOD_NOT_ALLOWED\` with \`Allow: ${allow}\`.`;
  }
  // After every route: the components are compared across routes while they are built.
  for (const name of selectable) {
    const record = schemas.get(name);
    if (record) schemas.set(name, withSelectableFields(record));
  }
  const examples = recordExamples(schema, operations);
  for (const [name, record] of schemas) {
    const example = examples.get(name);
    if (example === undefined) throw new Error(`OpenAPI: record ${name} has no example; declare one on each of its fields (src/schema/field-facts.ts)`);
    schemas.set(name, { ...record, examples: [example] });
  }
  addParameterExamples(paths, schemas);
  return { paths, usedBy, schemas };
}

/** Each record fragment's example, from the examples its type's fields declare. */
function recordExamples(schema: GraphQLSchema, operations: PreparedOperations): Map<string, JsonValue> {
  const examples = new Map<string, JsonValue>();
  const documents: DocumentNode[] = [...operations.values()];
  for (const definition of documents.flatMap((document) => document.definitions)) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION || examples.has(definition.name.value)) continue;
    const type = schema.getType(definition.typeCondition.name.value);
    const example = isObjectType(type) ? recordExample(recordFields(type)) : undefined;
    if (example !== undefined) examples.set(definition.name.value, example as JsonValue);
  }
  return examples;
}

function securitySchemes(config: Config, usedBy: ReadonlyMap<string, string[]>): Record<string, SecuritySchemeObject> {
  return {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'An access token from `POST /oauth/token`, or from the configured identity provider',
    },
    oauth2: {
      type: 'oauth2',
      description: 'Client credentials of an API key; scopes are the permissions a token carries',
      // AUTH_URL is where clients get tokens (PUBLIC_URL unless an external provider issues them).
      flows: { clientCredentials: { tokenUrl: `${config.AUTH_URL}/oauth/token`, scopes: scopeDescriptions(usedBy) } },
    },
    // The two identifying headers every /api request carries besides the token (docs/auth.md).
    clientId: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Client-Id',
      description: 'The client id the access token was issued to (its `sub`)',
    },
    userAgent: {
      type: 'apiKey',
      in: 'header',
      name: 'User-Agent',
      description: 'Names the client, e.g. `my-script/1.0 (me@example.org)`; required for API key requests',
    },
    clientBasic: {
      type: 'http',
      scheme: 'basic',
      description: 'client_id and client_secret, form-urlencoded (RFC 6749 §2.3.1); `/oauth/token` only',
    },
  };
}

/** Components by name; two sources defining one name is a start-up error, never a silent override. */
function mergeSchemas(...sources: Record<string, JsonSchema>[]): Record<string, JsonSchema> {
  const merged: Record<string, JsonSchema> = {};
  for (const [name, schema] of sources.flatMap((source) => Object.entries(source))) {
    if (name in merged) throw new Error(`OpenAPI: two schemas are named ${name}`);
    merged[name] = schema;
  }
  return merged;
}

export interface PackageInfo {
  version: string;
  description: string;
  license: string;
}

/** package.json's facts about the service (its version is the API's and the MCP server's). */
export function readPackage(): PackageInfo {
  return JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as PackageInfo;
}

const OVERVIEW = [
  'Every `/api` request carries three headers: `Authorization: Bearer <access token>`, `User-Agent` and `X-Client-Id`.',
  'Tokens come from `POST /oauth/token` (client credentials of an API key).',
  'Errors are `{"error": {"code", "message", "details"?}}`; lists are `{"data", "page"}`.',
  'The same data as a graph: `/graphql`.',
].join(' ');

export function buildOpenApiDocument(sources: OpenApiSources): OpenApiDocument {
  const { paths, usedBy, schemas } = restPaths(sources);
  const described = new Map(declaredResources().map((resource) => [resource.name, resource.description]));
  const tags = [
    ...[...new Set(sources.routes.map((route) => route.id.split('.')[0]!))].map((name) => ({ name, description: described.get(name)! })),
    ...FIXED_TAGS,
  ];
  const pkg = readPackage();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Venture Data API',
      version: pkg.version,
      description: `${pkg.description}\n\n${OVERVIEW}`,
      license: { name: pkg.license, identifier: pkg.license },
      // The deployment's own documentation page: whoever runs this service answers for it.
      contact: { name: 'Venture Data API', url: `${sources.config.PUBLIC_URL}/docs` },
    },
    servers: [{ url: sources.config.PUBLIC_URL }],
    tags,
    paths: { ...paths, ...fixedPaths(sources.config) },
    components: {
      schemas: mergeSchemas(Object.fromEntries(schemas), ERROR_SCHEMAS, FIXED_SCHEMAS),
      headers: HEADERS,
      responses: errorResponseComponents(),
      securitySchemes: securitySchemes(sources.config, usedBy),
    },
  };
}
