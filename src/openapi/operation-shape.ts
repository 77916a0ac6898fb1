/**
 * What a route's prepared operation tells the document: its one root field (whose permission rule
 * and return type describe the route), the response key the REST envelope reads (`list`, `record`,
 * `items`; see src/rest/envelope.ts), and its variables, which are the route's inputs.
 */
import {
  BREAK,
  Kind,
  typeFromAST,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  isInputType,
  isNonNullType,
} from 'graphql';

export interface VariableShape {
  name: string;
  type: GraphQLInputType;
  /** The root-field argument the variable is passed to (its description documents the input). */
  argument: GraphQLArgument | undefined;
  /**
   * Required from the client: non-null, no default, and passed to an argument. A variable used only by
   * `@include`/`@skip` shapes the response (e.g. `withTotal`), and the route gives it a default.
   */
  required: boolean;
}

export interface OperationShape {
  document: DocumentNode;
  rootType: GraphQLObjectType;
  rootField: GraphQLField<unknown, unknown>;
  /** The response key, e.g. `list` in `list: entities(...)`. */
  key: string;
  root: FieldNode;
  variables: VariableShape[];
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

export function operationShape(schema: GraphQLSchema, document: DocumentNode): OperationShape {
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const name = operation?.name?.value ?? '(anonymous)';
  const rootType = operation ? schema.getRootType(operation.operation) : undefined;
  const selections = operation?.selectionSet.selections ?? [];
  const roots = selections.filter((selection): selection is FieldNode => selection.kind === Kind.FIELD);
  const root = roots[0];
  if (!operation || !rootType || !root || roots.length !== 1) {
    throw new Error(`OpenAPI: operation ${name} must select exactly one root field`);
  }
  const rootField = rootType.getFields()[root.name.value];
  if (!rootField) throw new Error(`OpenAPI: ${rootType.name} has no field ${root.name.value}`);
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  return {
    document,
    rootType,
    rootField,
    key: root.alias?.value ?? root.name.value,
    root,
    variables: variableShapes(schema, operation, root, rootField),
    fragments,
  };
}

function variableShapes(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  root: FieldNode,
  rootField: GraphQLField<unknown, unknown>,
): VariableShape[] {
  return (operation.variableDefinitions ?? []).map((definition) => {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) throw new Error(`OpenAPI: variable $${name} has no input type`);
    const bound = root.arguments?.find((node) => node.value.kind === Kind.VARIABLE && node.value.name.value === name);
    const argument = bound ? rootField.args.find((candidate) => candidate.name === bound.name.value) : undefined;
    const required = isNonNullType(type) && definition.defaultValue === undefined && passedToAnArgument(operation, name);
    return { name, type, argument, required };
  });
}

/** Whether `$name` is an argument value somewhere (not only a directive's). */
function passedToAnArgument(operation: OperationDefinitionNode, name: string): boolean {
  let found = false;
  visit(operation, {
    Directive: () => false, // skip: directive arguments do not count
    Argument: (node) => {
      if (node.value.kind === Kind.VARIABLE && node.value.name.value === name) {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}
