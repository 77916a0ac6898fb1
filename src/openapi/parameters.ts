/**
 * A route's inputs from its operation's variables: `{name}` segments are path parameters, the other
 * variables are query parameters (GET, DELETE) or body fields (POST, PUT, PATCH), typed by GraphQL
 * and described by the argument each is passed to. List parameters add what the list code enforces.
 */
import { describeFilterFields, FILTER_LIMITS, RESOURCES, sortableFields, type Resource } from '../filter/index.ts';
import type { Route } from '../rest/routes.ts';
import { DEFAULT_LIMIT } from '../schema/list.ts';
import { sortPattern } from '../schema/list-order.ts';
import type { ListFacts } from '../schema/resource.ts';
import { bodySchema } from './body-schema.ts';
import { OFFSET_SCHEMA } from './schema-helpers.ts';
import { aggregateParameter } from './aggregate-parameters.ts';
import type { VariableShape } from './operation-shape.ts';
import { inputSchema } from './schemas-from-graphql.ts';
import { changeTypesExamples, changeTypesPattern } from './vocabulary-patterns.ts';
import type { JsonSchema, ParameterObject } from './types.ts';

/** REST names of variables named otherwise (src/rest/routes.ts reads `include_total` into `$withTotal`). */
const QUERY_NAMES: Readonly<Record<string, string>> = { withTotal: 'include_total' };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export interface RouteInputs {
  parameters: ParameterObject[];
  body: JsonSchema | undefined;
}

export function routeInputs(
  route: Route,
  variables: VariableShape[],
  facts: ListFacts | undefined,
  recordFields: string[],
): RouteInputs {
  const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const parameters = pathNames.map((name) => pathParameter(name, variables.find((variable) => variable.name === name), route.textParams?.[name]));
  const others = variables.filter((variable) => !pathNames.includes(variable.name));
  const fields = recordFields.length ? [fieldsParameter(recordFields)] : [];
  if (BODY_METHODS.has(route.method)) return { parameters: [...parameters, ...fields], body: routeBody(route, others) };
  const declaredQuery = route.querySchema ? bodySchema(route.querySchema) : undefined;
  const declared = declaredQuery?.properties;
  const query = others.map((variable) => {
    const name = QUERY_NAMES[variable.name] ?? variable.name;
    // Required by the querySchema though not by the operation (`q` of a search: the resolver says so, after the permission check).
    const required = variable.required || (declaredQuery?.required?.includes(name) ?? false);
    return feedParameter(route, queryParameter({ ...variable, required }, facts, declared?.[name], route.aggregates));
  });
  return { parameters: [...parameters, ...query, ...fields], body: undefined };
}

/** `pattern`: what the route requires of a path parameter it takes as text (its `textParams`), else 400. */
function pathParameter(name: string, variable: VariableShape | undefined, pattern: RegExp | undefined): ParameterObject {
  return { name, in: 'path', required: true, schema: pathSchema(name, variable, pattern), ...describe(variable?.argument?.description) };
}

function pathSchema(name: string, variable: VariableShape | undefined, pattern: RegExp | undefined): JsonSchema {
  if (!variable) return { type: 'string', ...(pattern ? { pattern: pattern.source } : {}) };
  const schema = inputSchema(variable.type);
  // Path ids are `^\d+$` (docs/read-api.md, Transport); anything else is 400.
  if (schema.type === 'integer') return { type: 'integer', minimum: 1 };
  // `/api/filters/{resource}`: the filterable resources; any other is 404.
  if (name === 'resource') return { ...schema, enum: RESOURCES };
  return pattern ? { ...schema, pattern: pattern.source } : schema;
}

/**
 * `declared`: the parameter's schema from the route's querySchema, which states more than its GraphQL
 * type; `aggregates`: the source of an aggregate route, whose parameters have a grammar of their own.
 */
function queryParameter(variable: VariableShape, facts: ListFacts | undefined, declared: JsonSchema | undefined, aggregates: Resource | undefined): ParameterObject {
  const name = QUERY_NAMES[variable.name] ?? variable.name;
  const base = variable.argument?.description ?? undefined;
  const initial = declared ?? inputSchema(variable.type);
  const { schema, description } = aggregates
    ? aggregateParameter(name, initial, base, aggregates)
    : refineListParameter(name, initial, base, facts);
  return { name, in: 'query', required: variable.required, schema, ...describe(description) };
}

/** The change feed's `types`: the change types the server knows (src/changes/resources.ts), as a pattern. */
function feedParameter(route: Route, parameter: ParameterObject): ParameterObject {
  if (route.kind !== 'feed' || parameter.name !== 'types') return parameter;
  return { ...parameter, schema: { ...parameter.schema, pattern: changeTypesPattern(), examples: changeTypesExamples() } };
}

interface Described {
  schema: JsonSchema;
  description: string | undefined;
}

/** What the list code checks beyond the GraphQL type (src/schema/list.ts, list-query.ts). */
function refineListParameter(
  name: string,
  schema: JsonSchema,
  base: string | undefined,
  facts: ListFacts | undefined,
): Described {
  if (!facts) return { schema, description: base };
  const resource = facts.resource;
  switch (name) {
    case 'limit':
      return {
        schema: { ...schema, minimum: 1, maximum: facts.maxLimit, default: DEFAULT_LIMIT },
        description: `${base ?? 'Records per page'}; 1 to ${facts.maxLimit}, never clamped`,
      };
    case 'offset':
      return { schema: { ...schema, ...OFFSET_SCHEMA }, description: base };
    case 'include_total':
      return { schema: { ...schema, default: false }, description: '`true` adds `page.total`, the number of matching records' };
    case 'filter':
      return { schema: { ...schema, maxLength: FILTER_LIMITS.maxLength }, description: resource ? filterDescription(base, resource) : base };
    case 'sort':
      return {
        schema: {
          ...schema,
          ...(resource ? { pattern: sortPattern(resource) } : {}),
          ...(facts.defaultSort ? { default: facts.defaultSort } : {}),
        },
        description: resource ? sortDescription(base, resource) : base,
      };
    default:
      return { schema, description: base };
  }
}

function filterDescription(base: string | undefined, resource: Resource): string {
  const fields = describeFilterFields(resource).map(
    (field) => `\`${field.name}\` (${field.type}${field.nullable ? ', nullable' : ''}): ${field.operators.join(', ')}`,
  );
  const heading = `Filterable fields (also listed by \`GET /api/filters/${resource}\`):`;
  return `${base ?? 'Filter expression'}.\n\n${heading}\n\n- ${fields.join('\n- ')}`;
}

function sortDescription(base: string | undefined, resource: Resource): string {
  const names = [...sortableFields(resource).keys()].map((name) => `\`${name}\``);
  return `${base ?? 'Sort order'}. Sortable: ${names.join(', ')}. The order always ends with \`id\` as the tie-breaker.`;
}

/**
 * `fields=a,b`: a subset of the record's fields; `id` is always kept. Declared comma-separated, and the
 * server takes the repeated form too (`fields=a&fields=b`, openapi-fetch's default for arrays).
 */
function fieldsParameter(recordFields: string[]): ParameterObject {
  return {
    name: 'fields',
    in: 'query',
    required: false,
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: recordFields } },
    description:
      'Only these fields of each record (`id` is always kept); records then carry just those. ' +
      `Comma-separated, or the parameter repeated (\`${recordFields.slice(1, 3).map((name) => `fields=${name}`).join('&')}\`); an unknown name is 400, ` +
      'blank names and spaces around a name are ignored.',
  };
}

/**
 * The body as the route's zod schema states it (body-schema.ts), each field described by the GraphQL
 * argument it becomes. A route whose operation takes body variables must declare that schema.
 */
function routeBody(route: Route, variables: VariableShape[]): JsonSchema | undefined {
  if (variables.length === 0) return undefined;
  if (!route.bodySchema) throw new Error(`OpenAPI: ${route.method} ${route.path} takes a body but declares no bodySchema`);
  const descriptions = Object.fromEntries(
    variables.flatMap((variable) => (variable.argument?.description ? [[variable.name, variable.argument.description]] : [])),
  );
  return bodySchema(route.bodySchema, descriptions);
}

const describe = (description: string | null | undefined): { description?: string } => (description ? { description } : {});
