/**
 * Loads the prepared operations (operations/*.graphql) and validates every one against the schema at
 * start-up, so a REST route can never point at a query the schema does not serve. A record fragment an
 * operation spreads (`...EntityRecord`) without its file defining it is the record its type declares
 * (src/schema/record-fields.ts), so the files name no field of a record.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  isObjectType,
  Kind,
  parse,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
} from 'graphql';
import { packagePath } from '../package-root.ts';
import { recordFields, recordSelection } from '../schema/record-fields.ts';

const OPERATIONS_DIR = packagePath('src/rest/operations');

export type PreparedOperations = ReadonlyMap<string, DocumentNode>;

/** One self-contained document per named operation (the operation plus every fragment of its file). */
export function loadOperations(schema: GraphQLSchema, dir = OPERATIONS_DIR): PreparedOperations {
  const operations = new Map<string, DocumentNode>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.graphql')).sort()) {
    const document = parse(readFileSync(join(dir, file), 'utf8'));
    const fragments = [
      ...document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION),
      ...derivedFragments(schema, document),
    ];
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

/** The record fragments `document` spreads but does not define, each on the type it is spread in. */
function derivedFragments(schema: GraphQLSchema, document: DocumentNode): FragmentDefinitionNode[] {
  const defined = new Set(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [definition.name.value] : [])));
  const derived = new Map<string, FragmentDefinitionNode>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      FragmentSpread: (spread) => {
        const name = spread.name.value;
        const type = typeInfo.getParentType();
        if (defined.has(name) || derived.has(name) || !isObjectType(type)) return;
        const text = `fragment ${name} on ${type.name} { ${recordSelection(recordFields(type))} }`;
        derived.set(name, parse(text).definitions[0] as FragmentDefinitionNode);
      },
    }),
  );
  return [...derived.values()];
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
