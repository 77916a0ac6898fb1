/**
 * A request body's JSON Schema, from the very zod schema the route parses its body with
 * (src/management/*.ts, src/auth/api-keys.ts), so the document refuses what the server refuses:
 * unknown fields, lengths, patterns, enums, formats, item counts. What zod cannot state in JSON Schema
 * (a refinement) the field states with `.meta()` beside its check. Every text the server takes holds
 * no NUL character and no lone UTF-16 surrogate (src/management/input.ts `text`; the REST handler
 * refuses a NUL anywhere in a body), which `TEXT_PATTERN` says for each string.
 */
import { z } from 'zod';
import type { JsonSchema } from './types.ts';

/** No NUL and no lone surrogate: ECMA-262 with the `u` flag reads a surrogate pair as one code point. */
export const TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';

export function bodySchema(schema: z.ZodType, descriptions: Readonly<Record<string, string>> = {}): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    // The body as the client sends it: a field with a default may be left out.
    io: 'input',
    // A free-form JSON field (`z.custom`) states its type with `.meta()`.
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      const node = jsonSchema as JsonSchema;
      if (node.type !== 'string' || node.enum || node.const !== undefined || node.format) return;
      // zod may hand the same node over more than once (a schema and its `.meta()` copy).
      if (node.pattern === TEXT_PATTERN || node.allOf?.some((part) => part.pattern === TEXT_PATTERN)) return;
      if (node.pattern === undefined) node.pattern = TEXT_PATTERN;
      else node.allOf = [...(node.allOf ?? []), { pattern: TEXT_PATTERN }];
    },
  }) as JsonSchema & { $schema?: string };
  delete json.$schema;
  for (const [name, description] of Object.entries(descriptions)) {
    const property = json.properties?.[name];
    if (property && !property.description) property.description = description;
  }
  return json;
}
