/**
 * JSON Schemas from GraphQL: a REST record is exactly what its operation's selection returns, so the
 * record schema is the selection set walked against the schema's types. Fragments become components
 * (`#/components/schemas/EntityRecord`), so each record type is described once and referenced.
 */
import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { componentRef, exactObject, nullable, withDescription } from './schema-helpers.ts';
import type { JsonSchema } from './types.ts';

/** How each scalar reads in JSON. A scalar missing here stops the start, so none goes undescribed. */
const SCALARS: Readonly<Record<string, JsonSchema>> = {
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  String: { type: 'string' },
  ID: { type: 'string' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  // Whole US dollars, serialised as a JSON number (src/schema/scalars.ts).
  Money: { type: 'integer' },
  JSON: {},
};

export function scalarSchema(type: GraphQLScalarType): JsonSchema {
  const schema = SCALARS[type.name];
  if (!schema) throw new Error(`OpenAPI: no JSON Schema for the GraphQL scalar ${type.name}; add it to SCALARS`);
  return { ...schema };
}

function namedLeafSchema(type: GraphQLNamedType): JsonSchema | undefined {
  if (isScalarType(type)) return scalarSchema(type);
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((value) => value.name) };
  return undefined;
}

/** Where selections are read: the operation's fragments, and the components they turn into. */
export class SelectionWalker {
  /**
   * @param fragments the operation's fragments
   * @param components where fragment schemas are collected, shared by every operation of the document
   */
  constructor(
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    readonly components: Map<string, JsonSchema>,
  ) {}

  /** The schema of a field's value: GraphQL nullability becomes `null` in the type list. */
  output(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
    if (isNonNullType(type)) return this.outputNonNull(type.ofType, selectionSet);
    return nullable(this.outputNonNull(type, selectionSet));
  }

  /** The value's schema with the outer nullability dropped (e.g. a record the route 404s on when null). */
  outputNonNull(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined): JsonSchema {
    const inner = getNullableType(type);
    if (isListType(inner)) return { type: 'array', items: this.output(inner.ofType, selectionSet) };
    const leaf = namedLeafSchema(inner);
    if (leaf) return leaf;
    if (isObjectType(inner) && selectionSet) return this.selection(inner, selectionSet);
    throw new Error(`OpenAPI: cannot describe a selection on ${inner.toString()} (interfaces and unions are not supported)`);
  }

  /** A selection set: a lone fragment spread is a `$ref` to its component, anything else inline. */
  selection(parent: GraphQLObjectType, selectionSet: SelectionSetNode): JsonSchema {
    const [only, ...others] = selectionSet.selections;
    if (only?.kind === Kind.FRAGMENT_SPREAD && others.length === 0 && !only.directives?.length) {
      return { $ref: componentRef(this.fragmentComponent(parent, only.name.value)) };
    }
    return this.object(parent, selectionSet);
  }

  private fragmentComponent(parent: GraphQLObjectType, name: string): string {
    const fragment = this.fragment(name);
    const schema = this.object(parent, fragment.selectionSet);
    const existing = this.components.get(name);
    // Fragment names are unique per file only: two files reusing a name for different records is an error.
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`OpenAPI: fragment ${name} is defined differently in two operation files`);
    }
    this.components.set(name, schema);
    return name;
  }

  private object(parent: GraphQLObjectType, selectionSet: SelectionSetNode): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const optional: string[] = [];
    for (const { key, node, conditional } of this.collect(parent, selectionSet, false)) {
      if (key in properties) throw new Error(`OpenAPI: ${parent.name}.${key} is selected twice; merge the selections`);
      properties[key] = this.field(parent, node);
      if (conditional) optional.push(key);
    }
    return exactObject(properties, optional);
  }

  private field(parent: GraphQLObjectType, node: FieldNode): JsonSchema {
    if (node.name.value === '__typename') return { type: 'string', const: parent.name };
    const definition = parent.getFields()[node.name.value];
    if (!definition) throw new Error(`OpenAPI: ${parent.name} has no field ${node.name.value}`);
    // A JSON field may say which JSON it holds (`extensions.jsonSchema`), so clients get a type, not `unknown`.
    const declared = definition.extensions.jsonSchema as JsonSchema | undefined;
    const schema = !declared || node.selectionSet
      ? this.output(definition.type, node.selectionSet)
      : isNonNullType(definition.type) ? { ...declared } : nullable({ ...declared });
    return withDescription(schema, definition.description);
  }

  /** The fields a selection set yields, fragments expanded; `@include`/`@skip` make a field optional. */
  private collect(parent: GraphQLObjectType, selectionSet: SelectionSetNode, conditional: boolean): CollectedField[] {
    return selectionSet.selections.flatMap((selection: SelectionNode): CollectedField[] => {
      const isConditional = conditional || Boolean(selection.directives?.some(isConditionalDirective));
      if (selection.kind === Kind.FIELD) {
        return [{ key: selection.alias?.value ?? selection.name.value, node: selection, conditional: isConditional }];
      }
      const typeCondition = selection.kind === Kind.FRAGMENT_SPREAD
        ? this.fragment(selection.name.value).typeCondition.name.value
        : selection.typeCondition?.name.value;
      if (typeCondition !== undefined && typeCondition !== parent.name) {
        throw new Error(`OpenAPI: fragment on ${typeCondition} inside ${parent.name} is not supported`);
      }
      const inner = selection.kind === Kind.FRAGMENT_SPREAD
        ? this.fragment(selection.name.value).selectionSet
        : selection.selectionSet;
      return this.collect(parent, inner, isConditional);
    });
  }

  private fragment(name: string): FragmentDefinitionNode {
    const fragment = this.fragments.get(name);
    if (!fragment) throw new Error(`OpenAPI: unknown fragment ${name}`);
    return fragment;
  }
}

interface CollectedField {
  key: string;
  node: FieldNode;
  conditional: boolean;
}

const isConditionalDirective = (directive: { name: { value: string } }): boolean =>
  directive.name.value === 'include' || directive.name.value === 'skip';

/** A variable's or argument's input type as JSON (query parameters and request bodies). */
export function inputSchema(type: GraphQLInputType): JsonSchema {
  const inner = getNullableType(type);
  if (isListType(inner)) return { type: 'array', items: inputSchema(inner.ofType) };
  const leaf = namedLeafSchema(inner);
  if (leaf) return leaf;
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields());
    const properties = Object.fromEntries(
      fields.map((field) => [field.name, withDescription(inputSchema(field.type), field.description)]),
    );
    const optional = fields
      .filter((field) => !isNonNullType(field.type) || field.defaultValue !== undefined)
      .map((field) => field.name);
    return exactObject(properties, optional);
  }
  throw new Error(`OpenAPI: cannot describe the input type ${inner.toString()}`);
}
