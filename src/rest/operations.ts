/**
 * Loads the prepared operations (operations/*.graphql) and validates every one against the schema at
 * start-up, so a REST route can never point at a query the schema does not serve.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Kind,
  parse,
  validate,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
} from 'graphql';
import { packagePath } from '../package-root.ts';

const OPERATIONS_DIR = packagePath('src/rest/operations');

export type PreparedOperations = ReadonlyMap<string, DocumentNode>;

/** One self-contained document per named operation (the operation plus every fragment of its file). */
export function loadOperations(schema: GraphQLSchema, dir = OPERATIONS_DIR): PreparedOperations {
  const operations = new Map<string, DocumentNode>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.graphql')).sort()) {
    const document = parse(readFileSync(join(dir, file), 'utf8'));
    const fragments = document.definitions.filter(
      (definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION,
    );
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const name = definition.name?.value;
      if (!name) throw new Error(`${file}: every prepared operation needs a name`);
      if (operations.has(name)) throw new Error(`${file}: operation ${name} is defined twice`);
      const used = fragmentsUsedBy(definition, fragments);
      const single: DocumentNode = { kind: Kind.DOCUMENT, definitions: [definition, ...used] };
      const errors = validate(schema, single);
      if (errors.length) throw new Error(`${file}: operation ${name} is invalid: ${errors.map(String).join('; ')}`);
      operations.set(name, single);
    }
  }
  return operations;
}

/** The fragments an operation needs, following spreads inside fragments too. */
function fragmentsUsedBy(root: DefinitionNode, all: FragmentDefinitionNode[]): FragmentDefinitionNode[] {
  const byName = new Map(all.map((fragment) => [fragment.name.value, fragment]));
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: DefinitionNode[] = [root];
  while (pending.length) {
    visit(pending.pop()!, {
      FragmentSpread: (spread) => {
        const fragment = byName.get(spread.name.value);
        if (fragment && !used.has(fragment.name.value)) {
          used.set(fragment.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...used.values()];
}

/** Top-level field names of the record an operation returns (its first fragment), for `fields=`. */
export function recordFieldNames(document: DocumentNode): string[] {
  const fragment = document.definitions.find(
    (definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION,
  );
  if (!fragment) return [];
  return fragment.selectionSet.selections.flatMap((selection) =>
    selection.kind === Kind.FIELD ? [selection.alias?.value ?? selection.name.value] : [],
  );
}
