/**
 * Each parameter's `example`, for the clients that build requests from the document (Postman and
 * Portman, Swagger UI's "Try it out"), which read a parameter's own `example` and not its schema's
 * `examples`: a query parameter takes its schema's first example; a path parameter naming a record
 * (`/api/entities/{id}`, `/api/ecosystems/{ecosystem}/entities`) takes the id of the example record
 * that record's GET answers, an id the demo data holds.
 */
import type { JsonSchema, JsonValue, ParameterObject, PathItem, Reference } from './types.ts';

export function addParameterExamples(paths: Record<string, PathItem>, schemas: ReadonlyMap<string, JsonSchema>): void {
  const recordIds = exampleRecordIds(paths, schemas);
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of [item.get, item.post, item.put, item.patch, item.delete]) {
      for (const parameter of operation?.parameters ?? []) {
        if (isReference(parameter) || parameter.example !== undefined) continue;
        const example = parameter.in === 'path' ? pathExample(parameter.schema, recordIds.get(recordPath(path, parameter.name))) : schemaExample(parameter.schema);
        if (example !== undefined) parameter.example = example;
      }
    }
  }
}

/** `/api/ecosystems/{ecosystem}/entities`, `ecosystem` → `/api/ecosystems/{id}`. */
function recordPath(path: string, name: string): string {
  const end = path.indexOf(`{${name}}`);
  return end < 0 ? '' : `${path.slice(0, end)}{id}`;
}

/** The paths `/api/<records>/{id}` whose GET answers `{data: <record>}`, with that record's example id. */
function exampleRecordIds(paths: Record<string, PathItem>, schemas: ReadonlyMap<string, JsonSchema>): Map<string, JsonValue> {
  const ids = new Map<string, JsonValue>();
  for (const [path, item] of Object.entries(paths)) {
    if (!path.endsWith('/{id}')) continue;
    const answer = item.get?.responses['200'];
    const schema = answer && !isReference(answer) ? answer.content?.['application/json']?.schema : undefined;
    const ref = schema?.properties?.data?.$ref;
    const example = ref ? schemas.get(ref.replace('#/components/schemas/', ''))?.examples?.[0] : undefined;
    if (example && typeof example === 'object' && !Array.isArray(example) && example.id !== undefined) ids.set(path, example.id);
  }
  return ids;
}

/** A record's id as the path parameter's schema types it (an ecosystem's `{id}` is its id or its slug, a string). */
function pathExample(schema: JsonSchema, id: JsonValue | undefined): JsonValue | undefined {
  if (id === undefined) return undefined;
  return schema.type === 'string' ? String(id) : id;
}

function schemaExample(schema: JsonSchema): JsonValue | undefined {
  if (schema.examples?.length) return schema.examples[0];
  const item = schema.type === 'array' ? schema.items?.examples?.[0] : undefined;
  return item === undefined ? undefined : [item];
}

const isReference = (value: object): value is Reference => '$ref' in value;
