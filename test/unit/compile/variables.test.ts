// The compiled reads' variables and arguments equal graphql-js's own reading of them (getVariableValues,
// getArgumentValues) for every operation REST prepares, on generated values of every kind: valid and
// invalid, missing, undefined and null; and they read every list and record REST serves compiled
// themselves, without handing it to graphql-js.
import fc from 'fast-check';
import {
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type GraphQLField,
  parse,
  type FieldNode,
  type OperationDefinitionNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { INVALID, readArguments, readVariables } from '../../../src/compile/variables.ts';
import { loadOperations } from '../../../src/rest/operations.ts';
import { getSchema } from '../../../src/api-schema.ts';

const schema = getSchema();
const operations = [...loadOperations(schema).entries()]
  .map(([name, document]) => [name, getOperationAST(document)!] as const)
  .filter(([, operation]) => operation.operation === 'query');

/** Values a variable may be sent as, over REST or in a /graphql request's JSON. */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
  fc.double(),
  fc.string(),
  fc.constantFrom('true', '25', '', 'name:x'),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.constant({ nested: 1 }),
);

function variablesFor(operation: OperationDefinitionNode) {
  const names = (operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value);
  return fc.dictionary(fc.constantFrom(...names, 'unknown'), anyValue, { maxKeys: names.length + 1 });
}

/** graphql-js's answer in the readers' terms: the coerced values, or INVALID. */
function graphqlVariables(operation: OperationDefinitionNode, raw: Record<string, unknown>) {
  const result = getVariableValues(schema, operation.variableDefinitions ?? [], raw);
  return result.errors ? INVALID : result.coerced;
}

function rootFields(operation: OperationDefinitionNode): [GraphQLField<unknown, unknown>, FieldNode][] {
  const query = schema.getQueryType()!;
  return operation.selectionSet.selections
    .filter((selection): selection is FieldNode => selection.kind === Kind.FIELD && !selection.name.value.startsWith('__'))
    .map((node) => [query.getFields()[node.name.value]!, node]);
}

/** Throws as graphql-js throws; else its values. */
const attempt = (read: () => unknown) => {
  try {
    return { value: read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

describe.each(operations)('%s', (_name, operation) => {
  const read = readVariables(schema, operation);

  it('reads variables as graphql-js does', () => {
    fc.assert(
      fc.property(variablesFor(operation), (raw) => {
        expect(read(raw)).toEqual(graphqlVariables(operation, raw));
      }),
      { numRuns: 300 },
    );
  });

  it('reads each root field\'s arguments as graphql-js does', () => {
    const fields = rootFields(operation).map(([field, node]) => [field, node, readArguments(field, node)] as const);
    fc.assert(
      fc.property(variablesFor(operation), (raw) => {
        const variables = read(raw);
        if (variables === INVALID) return;
        for (const [field, node, readArgs] of fields) {
          expect(attempt(() => readArgs(variables))).toEqual(attempt(() => getArgumentValues(field, node, variables as Record<string, unknown>)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the readers of their own', () => {
  // What REST serves compiled: lists and records (aggregates and other roots run statements of their own).
  const compiled = operations.filter(([name]) => /^(List|Get)/.test(name));

  it('read the variables of every list and record REST prepares without graphql-js', () => {
    expect(compiled.filter(([, operation]) => readVariables(schema, operation).byGraphQL).map(([name]) => name)).toEqual([]);
  });

  it('read their root fields\' arguments without graphql-js', () => {
    const left = compiled.flatMap(([name, operation]) => rootFields(operation).filter(([field, node]) => readArguments(field, node).byGraphQL).map(() => name));
    expect(left).toEqual([]);
  });

  it('read literal scalars as graphql-js reads them', () => {
    const document = parse('query Q($id: Int!) { entity(id: $id) { id } entities(limit: 3, filter: "name:x") { data { id } } }');
    for (const [field, node] of rootFields(getOperationAST(document)!)) {
      const readArgs = readArguments(field, node);
      expect(readArgs.byGraphQL).toBe(false);
      expect(readArgs({ id: 7 })).toEqual(getArgumentValues(field, node, { id: 7 }));
    }
  });
});
