/**
 * Variables and field arguments as graphql-js's execution reads them (`getVariableValues`,
 * `getArgumentValues`), with the types looked up once per operation and field instead of on every
 * request: a compiled read coerces a handful of scalars per request, where graphql-js resolves each
 * type from the schema, walks the definitions and sets up its error reporting every time (about a
 * twentieth of a by-id read). Only what is simple is read here: scalar variables without defaults, and
 * arguments given as a variable, as a literal without variables, or not at all. Anything else (a list
 * or input object variable, a default value, a literal holding variables) is read by graphql-js
 * itself, and so is anything invalid, which it words; test/unit/compile/variables.test.ts compares
 * both on every operation REST prepares and on generated values.
 */
import {
  getArgumentValues,
  getNullableType,
  getVariableValues,
  GraphQLScalarType,
  isNonNullType,
  Kind,
  typeFromAST,
  valueFromAST,
  visit,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';

export type Variables = Readonly<Record<string, unknown>>;

/** What `readVariables` answers when the values are not valid for their types (graphql-js would report errors). */
export const INVALID = Symbol('invalid variables');

interface ScalarVariable {
  name: string;
  type: GraphQLScalarType;
  nonNull: boolean;
}

/** A reader, and whether it leaves every value to graphql-js (what it cannot read itself). */
type Reader<In, Out> = ((input: In) => Out) & { readonly byGraphQL: boolean };

const reader = <In, Out>(read: (input: In) => Out, byGraphQL: boolean): Reader<In, Out> => Object.assign(read, { byGraphQL });

/** The operation's variables reader: the coerced values, or INVALID. */
export function readVariables(schema: GraphQLSchema, operation: OperationDefinitionNode): Reader<Variables, Variables | typeof INVALID> {
  const definitions = operation.variableDefinitions ?? [];
  const general = reader((raw: Variables) => {
    const coerced = getVariableValues(schema, definitions, raw as Record<string, unknown>);
    return coerced.errors ? INVALID : coerced.coerced;
  }, true);
  const scalars: ScalarVariable[] = [];
  for (const definition of definitions) {
    const type = typeFromAST(schema, definition.type);
    const named = type && getNullableType(type);
    if (definition.defaultValue || !(named instanceof GraphQLScalarType)) return general;
    scalars.push({ name: definition.variable.name.value, type: named, nonNull: isNonNullType(type) });
  }
  return reader((raw: Variables) => {
    // As graphql-js builds it: no prototype, so no variable can be named like an Object method.
    const coerced: Record<string, unknown> = Object.create(null);
    for (const { name, type, nonNull } of scalars) {
      if (!Object.hasOwn(raw, name)) {
        if (nonNull) return INVALID;
        continue;
      }
      const value = raw[name];
      // graphql-js takes a present `undefined` for null.
      if (value === null || value === undefined) {
        if (nonNull) return INVALID;
        coerced[name] = null;
        continue;
      }
      let parsed: unknown;
      try {
        parsed = type.parseValue(value);
      } catch {
        return INVALID;
      }
      if (parsed === undefined) return INVALID;
      coerced[name] = parsed;
    }
    return coerced;
  }, false);
}

type ArgumentStep =
  | { name: string; variable: string; nonNull: boolean }
  | { name: string; value: unknown };

/**
 * The field's arguments for coerced variables, as `getArgumentValues(field, node, variables)` gives
 * them (and throws them, through it, when they are invalid).
 */
export function readArguments(field: GraphQLField<unknown, unknown>, node: FieldNode): Reader<Variables, Record<string, unknown>> {
  const general = reader((variables: Variables) => getArgumentValues(field, node, variables as Record<string, unknown>), true);
  const steps: ArgumentStep[] = [];
  for (const argument of field.args) {
    const given = node.arguments?.find((candidate) => candidate.name.value === argument.name);
    if (!given) {
      if (argument.defaultValue !== undefined || isNonNullType(argument.type)) return general;
      continue;
    }
    if (given.value.kind === Kind.VARIABLE) {
      if (argument.defaultValue !== undefined) return general;
      steps.push({ name: argument.name, variable: given.value.name.value, nonNull: isNonNullType(argument.type) });
      continue;
    }
    if (holdsVariables(given.value)) return general;
    const value = valueFromAST(given.value, argument.type);
    // An object or list would be shared by every request: graphql-js makes one per request.
    if (value === undefined || (typeof value === 'object' && value !== null)) return general;
    steps.push({ name: argument.name, value });
  }
  return reader((variables: Variables) => {
    const values: Record<string, unknown> = {};
    for (const step of steps) {
      if (!('variable' in step)) {
        values[step.name] = step.value;
        continue;
      }
      if (!Object.hasOwn(variables, step.variable)) {
        if (step.nonNull) return general(variables);
        continue;
      }
      const value = variables[step.variable];
      if (value === undefined || (value === null && step.nonNull)) return general(variables);
      values[step.name] = value;
    }
    return values;
  }, false);
}

function holdsVariables(value: ValueNode): boolean {
  let found = false;
  visit(value, {
    Variable: () => {
      found = true;
    },
  });
  return found;
}
