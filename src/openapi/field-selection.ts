/**
 * `fields=a,b` trims each record to those fields and `id` (src/rest/envelope.ts), so the record schema
 * of a route that takes `fields` cannot require the others: a generated client would reject the
 * trimmed records. The record's component therefore requires `id` only and says so; every property
 * is still described, and without `fields` every one is present.
 */
import { Kind, type DocumentNode, type FragmentDefinitionNode } from 'graphql';
import { recordFieldNames } from '../rest/operations.ts';
import type { JsonSchema } from './types.ts';

/** The fragment whose fields `fields=` selects from (the one recordFieldNames reads), if the route takes `fields`. */
export function selectableRecordFragment(document: DocumentNode): string | undefined {
  if (recordFieldNames(document).length === 0) return undefined;
  return document.definitions.find((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
    ?.name.value;
}

const NOTE = 'With `fields=`, a record carries only the fields asked for and `id`; without it, every field below is present.';

/** The record schema as `fields=` makes it true: only `id` is always there. */
export function withSelectableFields(schema: JsonSchema): JsonSchema {
  const always = schema.properties && 'id' in schema.properties ? ['id'] : [];
  return { ...schema, required: always, description: schema.description ? `${schema.description}\n\n${NOTE}` : NOTE };
}
