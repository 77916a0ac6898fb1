/**
 * A GraphQL query operation as SQL: each root field that reads a declared list (`extensions.list`) or
 * record (`extensions.record`) becomes one statement in which PostgreSQL chooses the rows and builds
 * their JSON. The selection part is written once per operation; each request adds its where, order and
 * window (from readListRequest, the resolvers' own reading of the arguments) and runs the statement.
 * Anything outside this (other root fields, mutations, a field without a column, path or relation
 * behind it) is NotCompiled: the operation then runs through the resolvers, which remain the reference.
 */
import {
  getNamedType,
  GraphQLObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { GraphQLContext } from '../schema/context.ts';
import { RESOURCE_MODEL, type ListDefinition, type ListFor, type RecordDefinition } from '../schema/list-query.ts';
import type { Resource } from '../filter/index.ts';
import { JsonText } from './json-text.ts';
import { readList, type CompiledList } from './list.ts';
import type { Model, Models } from './model.ts';
import { collectFields, objectOfFields, subfields, type SelectionScope } from './select.ts';
import { bindLate, column, NotCompiled, Statement, table } from './statement.ts';
import { whereSql } from './where.ts';
import { toParameter } from '../values/codecs.ts';
import { INVALID, readArguments, readVariables, type Variables } from './variables.ts';

export type { Variables } from './variables.ts';

export interface CompiledOperation {
  /** The operation's `data`; throws NotCompiled or the AppError the resolvers would have raised. */
  read(context: GraphQLContext, variables: Variables): Promise<Record<string, unknown>>;
}

interface RootExtensions {
  list?: ListDefinition<Resource>;
  listFor?: ListFor<Resource>;
  record?: RecordDefinition;
  /** Answered by one statement of its own that PostgreSQL writes the answer of (the aggregates): see OwnStatement. */
  ownStatement?: true;
}

/** The extension that declares a root field answered by its own statement (OwnStatement). */
export const OWN_STATEMENT = { ownStatement: true } as const;

/**
 * An operation whose every root field declares OWN_STATEMENT: its resolver runs one statement of its
 * own, so the operation is neither a read the compiler serves nor one it failed to (a fallback), and is
 * counted as neither. A NotCompiled (reason `root_field`), so every path that leaves a NotCompiled to
 * the resolvers does the same with it; only the counting tells it apart.
 */
export class OwnStatement extends NotCompiled {
  constructor(fields: string[]) {
    super('root_field', `root fields answered by their own statement: ${fields.join(', ')}`);
  }
}

/** Each operation's variables reader per schema, made on first use (src/compile/variables.ts). */
const variableReaders = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, ReturnType<typeof readVariables>>>();

/** Variables as the executor would coerce them; NotCompiled when they are invalid (execution reports it). */
export function coerceVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, raw: Variables): Variables {
  let readers = variableReaders.get(schema);
  if (!readers) variableReaders.set(schema, (readers = new WeakMap()));
  let read = readers.get(operation);
  if (!read) readers.set(operation, (read = readVariables(schema, operation)));
  const coerced = read(raw);
  if (coerced === INVALID) throw new NotCompiled('invalid_variables', 'invalid variables');
  return coerced;
}

export function compileOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Variables,
  models: Models,
): CompiledOperation {
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  const queryType = schema.getQueryType()!;
  const scope: SelectionScope = { statement: new Statement(models), fragments, variables };
  const selected = [...collectFields(scope, queryType, [operation.selectionSet])];
  const ownStatements = selected.map(([, nodes]) => queryType.getFields()[nodes[0]!.name.value]).filter((field) => (field?.extensions as RootExtensions | undefined)?.ownStatement);
  // Only when all are: beside a list, an aggregate leaves that list to the resolvers, a real fallback.
  if (selected.length && ownStatements.length === selected.length) throw new OwnStatement(ownStatements.map((field) => field!.name));
  const roots = selected.map(([key, nodes]) => {
    const field = queryType.getFields()[nodes[0]!.name.value];
    if (!field) throw new NotCompiled('root_field', `root field ${nodes[0]!.name.value}`);
    return { key, args: readArguments(field, nodes[0]!), read: compileRoot(scope, field, nodes) };
  });
  const written = scope.statement.params;
  const [only] = roots;
  if (roots.length === 1) {
    // The usual operation, one root field: its statement's promise, mapped, rather than an async loop.
    return {
      read: (context, variables) =>
        only!.read(context, only!.args(variables), bindLate(written, context, variables)).then((value) => ({ [only!.key]: value })),
    };
  }
  return {
    read: async (context, requestVariables) => {
      const data: Record<string, unknown> = {};
      const selectionParams = bindLate(written, context, requestVariables);
      // One statement per root field, one after another: a request holds one connection at a time.
      for (const root of roots) {
        data[root.key] = await root.read(context, root.args(requestVariables), selectionParams);
      }
      return data;
    },
  };
}

type CompiledRootRead = (context: GraphQLContext, args: Record<string, unknown>, selectionParams: readonly unknown[]) => Promise<unknown>;

function compileRoot(scope: SelectionScope, field: GraphQLField<unknown, unknown>, nodes: FieldNode[]): CompiledRootRead {
  const extensions = field.extensions as RootExtensions;
  const { list } = extensions;
  if (list) return compileListRoot(scope, field, nodes, async () => list);
  if (extensions.listFor) return compileListRoot(scope, field, nodes, extensions.listFor);
  if (extensions.record) return compileRecordRoot(scope, field, nodes, extensions.record);
  throw new NotCompiled('root_field', `root field ${field.name}`);
}

/** The model of a read type's rows, from its resource declaration (`X.owns()`, src/schema/resource.ts). */
function modelOf(scope: SelectionScope, type: GraphQLObjectType): Model {
  const records = (type.extensions as { records?: Resource }).records;
  if (!records) throw new NotCompiled('computed_field', `type ${type.name} of no read resource`);
  return scope.statement.model(RESOURCE_MODEL[records]);
}

function objectType(field: GraphQLField<unknown, unknown>): GraphQLObjectType {
  const type = getNamedType(field.type);
  if (!(type instanceof GraphQLObjectType)) throw new NotCompiled('computed_field', `${field.name} of a non-object type`);
  return type;
}

const PAGE_FIELDS = new Set(['limit', 'offset', 'total', 'total_is_estimate', 'next_cursor', '__typename']);

function compileListRoot(scope: SelectionScope, field: GraphQLField<unknown, unknown>, nodes: FieldNode[], definitionFor: ListFor<Resource>): CompiledRootRead {
  const listType = objectType(field);
  const listFields = subfields(scope, listType, nodes);
  const dataField = listType.getFields().data;
  const pageField = listType.getFields().page;
  if (!dataField || !pageField) throw new NotCompiled('computed_field', `list type ${listType.name}`);
  const itemType = objectType(dataField);
  const pageType = objectType(pageField);
  const model = modelOf(scope, itemType);

  const shape: CompiledList['shape'] = [];
  let selection = `'{}'::json`;
  for (const [key, fieldNodes] of listFields) {
    const name = fieldNodes[0]!.name.value;
    if (name === '__typename') shape.push({ key, typename: listType.name });
    else if (name === 'data') {
      const itemFields = subfields(scope, itemType, fieldNodes);
      selection = objectOfFields(scope, itemType, model, 'r', itemFields);
      shape.push({ key, data: true });
    } else if (name === 'page') {
      const pageFields = subfields(scope, pageType, fieldNodes);
      const page = [...pageFields].map(([pageKey, pageNodes]) => {
        const pageName = pageNodes[0]!.name.value;
        if (!PAGE_FIELDS.has(pageName) || pageNodes.some((node) => node.arguments?.length)) throw new NotCompiled('computed_field', `page field ${pageName}`);
        return { key: pageKey, field: pageName, typename: pageType.name };
      });
      shape.push({ key, page });
    } else throw new NotCompiled('computed_field', `list field ${name}`);
  }
  const list: CompiledList = { model, models: scope.statement.models, selection, shape };
  return async (context, args, selectionParams) => readList(list, await definitionFor(args, context), context, args, selectionParams);
}

function compileRecordRoot(scope: SelectionScope, field: GraphQLField<unknown, unknown>, nodes: FieldNode[], definition: RecordDefinition): CompiledRootRead {
  const type = objectType(field);
  const model = modelOf(scope, type);
  const fields = subfields(scope, type, nodes);
  const selection = objectOfFields(scope, type, model, 'r', fields);
  const recordStatement = (selectionParams: readonly unknown[], id: number) => {
    const statement = new Statement(scope.statement.models, selectionParams, 'w');
    const where = whereSql(statement, model, 'r', definition.where(id));
    const sql = `SELECT ${selection}::text AS j FROM ${table(model)} r WHERE ${where} ORDER BY ${column('r', 'id')} LIMIT 1`;
    return { sql, params: statement.params };
  };
  // The statement is the same for every id but for the id's own parameter: written once, so a request
  // binds one value and sends a text (and statement name) it has sent before.
  const template = idTemplate(recordStatement(scope.statement.params, 1), recordStatement(scope.statement.params, 2));
  const read = (context: GraphQLContext, sql: string, params: readonly unknown[]) =>
    context.sql.prepared<{ j: string }>(sql, params, context.signal).then(recordOf);
  return (context, args, selectionParams) => {
    if (template) {
      // The selection's parameters come first: this request's, late ones bound.
      const params = [...selectionParams, ...template.params.slice(selectionParams.length)];
      params[template.idAt] = toParameter(args.id);
      return read(context, template.sql, params);
    }
    const { sql, params } = recordStatement(selectionParams, args.id as number);
    return read(context, sql, params);
  };
}

const recordOf = ([row]: { j: string }[]): JsonText | null => (row ? new JsonText(row.j) : null);

/**
 * The statement written for two ids as one text whose only difference is the id's parameter, or
 * undefined when the where depends on the id in some other way (then each request writes its own).
 */
function idTemplate(one: { sql: string; params: unknown[] }, two: { sql: string; params: unknown[] }): { sql: string; params: unknown[]; idAt: number } | undefined {
  if (one.sql !== two.sql || one.params.length !== two.params.length) return undefined;
  const differing = one.params.flatMap((value, index) => (Object.is(value, two.params[index]) ? [] : [index]));
  if (differing.length !== 1 || one.params[differing[0]!] !== toParameter(1)) return undefined;
  return { sql: one.sql, params: one.params, idAt: differing[0]! };
}
