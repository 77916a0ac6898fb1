/**
 * Which GraphQL requests are served without a token: pure introspection, i.e. documents whose every
 * operation is a query selecting at its root only `__schema` / `__type` (plus `__typename` beside
 * them), directly or through fragments. The schema is public anyway (`/openapi.json`, `npm run
 * print-schema`); GraphiQL needs it before the user has pasted a token, so its docs and
 * autocompletion work from the first second. Anything that touches data, or a document that does not
 * parse, goes through authentication as usual; a document asking only for `__typename` asks nothing
 * about the schema and is not exempt either.
 */
import { Kind, parse, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

const SCHEMA_FIELDS = new Set(['__schema', '__type']);

/** Root field names of a selection set, following fragments (each fragment once, so cycles end). */
function rootFieldNames(selections: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen = new Set<string>()): string[] {
  return selections.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection.name.value];
    if (selection.kind === Kind.INLINE_FRAGMENT) return rootFieldNames(selection.selectionSet, fragments, seen);
    const name = selection.name.value;
    const fragment = fragments.get(name);
    if (!fragment || seen.has(name)) return ['<unknown fragment>'];
    seen.add(name);
    return rootFieldNames(fragment.selectionSet, fragments, seen);
  });
}

export function isPureIntrospection(document: DocumentNode): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (operations.length === 0) return false;
  return operations.every((operation) => {
    if (operation.operation !== 'query') return false;
    const names = rootFieldNames(operation.selectionSet, fragments);
    return names.some((name) => SCHEMA_FIELDS.has(name)) && names.every((name) => SCHEMA_FIELDS.has(name) || name === '__typename');
  });
}

/** The same test on a request's query text; false when it is not a string or does not parse. */
export function isPureIntrospectionQuery(query: unknown): boolean {
  // Cheap first: most requests never mention the schema.
  if (typeof query !== 'string' || !/__(schema|type)\b/.test(query)) return false;
  try {
    return isPureIntrospection(parse(query, { noLocation: true }));
  } catch {
    return false;
  }
}
