/** Small JSON Schema combinators the generator shares. */
import { GRAPHQL_MAX_INT } from 'graphql';
import type { JsonSchema, JsonType, JsonValue } from './types.ts';

/**
 * An `offset`: 0 up to GraphQL's Int, which every integer parameter is (src/rest/request.ts refuses
 * more), stated as `maximum`, which every validator checks, not only by `format: int32`.
 */
export const OFFSET_SCHEMA = { minimum: 0, maximum: GRAPHQL_MAX_INT, default: 0 } as const satisfies JsonSchema;

export const componentRef = (name: string): string => `#/components/schemas/${name}`;

/** The schema that also accepts `null`: a type list where it can be one, else `anyOf` (a `$ref`). */
export function nullable(schema: JsonSchema): JsonSchema {
  if (schema.$ref !== undefined || schema.type === undefined) {
    if (schema.$ref === undefined && Object.keys(schema).length === 0) return schema; // already anything
    const { description, ...rest } = schema;
    return { ...(description ? { description } : {}), anyOf: [rest, { type: 'null' }] };
  }
  const types: JsonType[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const withNull: JsonSchema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (schema.enum && !schema.enum.includes(null)) withNull.enum = [...schema.enum, null];
  return withNull;
}

export function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** `{type: object}` whose properties are all required and nothing else is allowed (REST records are exact). */
export function exactObject(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}

/**
 * The schema of a sample JSON value, for documents built by code that has no type description of
 * its own (e.g. the OpenID configuration): strings, numbers, arrays and objects as they appear. An
 * empty array shows no item, so the caller says what its items are (`emptyItems`).
 */
export function schemaOfValue(value: JsonValue, emptyItems: JsonSchema): JsonSchema {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array', items: value[0] === undefined ? emptyItems : schemaOfValue(value[0], emptyItems) };
  if (typeof value === 'object') {
    const properties = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, schemaOfValue(item, emptyItems)]));
    return { type: 'object', properties, required: Object.keys(properties) };
  }
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number' };
  return { type: typeof value === 'boolean' ? 'boolean' : 'string' };
}
