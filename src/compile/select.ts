/**
 * A GraphQL selection on a read type as one SQL expression building its JSON, with the response keys in
 * selection order. Each field is read from the project's own declaration of what it means
 * (src/schema/follow.ts, `extensions.follow`): a column of the record (`column('name')`), written as the
 * scalar serializes it; a related record or list, with the relation's own `orderBy`/`where`; a path
 * through several relations (tags, founders, an investor's name); or `__typename`. Any other field (a
 * resolver computing its value, arguments, an unknown scalar) is NotCompiled, and the whole operation
 * runs through the resolvers.
 */
import {
  getNamedType,
  GraphQLObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  type DirectiveNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { stepName, stepQuery, type FollowPath, type StepQuery } from '../schema/follow.ts';
import type { Model, Relation } from './model.ts';
import { column, joinCondition, NotCompiled, table, type Statement } from './statement.ts';
import { whereSql } from './where.ts';
import { CODECS, SCALAR_KIND } from '../values/codecs.ts';

export interface SelectionScope {
  statement: Statement;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Readonly<Record<string, unknown>>;
}

/**
 * A field that declares its own SQL (`extensions.compiled`): the JSON value of the field for the row
 * at `alias`, or NotCompiled. Its resolver stays the reference the answer must equal.
 */
export type CompiledField = (scope: SelectionScope, alias: string, nodes: readonly FieldNode[], field: GraphQLField<unknown, unknown>) => string;

/** The fields of a selection by response key, fragments inlined and @skip/@include applied. */
export function collectFields(
  scope: SelectionScope,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
  into = new Map<string, FieldNode[]>(),
): Map<string, FieldNode[]> {
  for (const selectionSet of selectionSets) {
    for (const selection of selectionSet.selections) {
      if (!included(scope, selection.directives ?? [])) continue;
      switch (selection.kind) {
        case Kind.FIELD: {
          const key = selection.alias?.value ?? selection.name.value;
          into.set(key, [...(into.get(key) ?? []), selection]);
          break;
        }
        case Kind.INLINE_FRAGMENT:
          if (selection.typeCondition && selection.typeCondition.name.value !== type.name) throw new NotCompiled('type_condition', 'type condition');
          collectFields(scope, type, [selection.selectionSet], into);
          break;
        case Kind.FRAGMENT_SPREAD: {
          const fragment = scope.fragments.get(selection.name.value);
          if (!fragment || fragment.typeCondition.name.value !== type.name) throw new NotCompiled('type_condition', 'fragment type condition');
          collectFields(scope, type, [fragment.selectionSet], into);
          break;
        }
      }
    }
  }
  return into;
}

function included(scope: SelectionScope, directives: readonly DirectiveNode[]): boolean {
  for (const directive of directives) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') throw new NotCompiled('directive', `@${name}`);
    const argument = directive.arguments?.[0];
    const value =
      argument?.value.kind === Kind.BOOLEAN
        ? argument.value.value
        : argument?.value.kind === Kind.VARIABLE
          ? scope.variables[argument.value.name.value] === true
          : undefined;
    if (value === undefined) throw new NotCompiled('directive', `@${name} argument`);
    if ((name === 'skip') === value) return false;
  }
  return true;
}

/** The fields selected under some nodes of one response key, by response key. */
export function subfields(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]): Map<string, FieldNode[]> {
  return collectFields(scope, type, nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])));
}

/** The JSON object of the record at `alias` (a row of `model`) with the selected fields of `type`. */
export function objectSql(scope: SelectionScope, type: GraphQLObjectType, model: Model, alias: string, nodes: readonly FieldNode[]): string {
  return objectOfFields(scope, type, model, alias, subfields(scope, type, nodes));
}

/**
 * The object as `row_to_json` of a one-row subquery whose columns are the response keys: PostgreSQL
 * writes it compactly, as JSON.stringify would, so its text can go to the client as it is (json-text.ts).
 * Response keys are GraphQL names (`[_A-Za-z][_0-9A-Za-z]*`), safe as quoted identifiers.
 */
export function objectOfFields(scope: SelectionScope, type: GraphQLObjectType, model: Model, alias: string, fields: Map<string, FieldNode[]>): string {
  const columns = [...fields].map(([key, nodes]) => `${fieldSql(scope, type, model, alias, nodes)} AS "${key}"`);
  return `(SELECT row_to_json(o) FROM (SELECT ${columns.join(', ')}) o)`;
}

/** A JSON array of `element`s in `order`, written compactly like the objects; `[]` when there are none. */
function arraySql(element: string, order: readonly string[], from: string): string {
  const orderBy = order.length ? ` ORDER BY ${order.join(', ')}` : '';
  return `(SELECT coalesce('[' || string_agg(${element}::text, ','${orderBy}) || ']', '[]')::json ${from})`;
}

function fieldSql(scope: SelectionScope, type: GraphQLObjectType, model: Model, alias: string, nodes: FieldNode[]): string {
  const name = nodes[0]!.name.value;
  if (name === '__typename') return `'${type.name}'::text`;
  const field = type.getFields()[name];
  if (!field) throw new NotCompiled('computed_field', `field ${type.name}.${name}`);
  const { follow, compiled } = field.extensions as { follow?: FollowPath; compiled?: CompiledField };
  // A field that writes its own SQL reads its own arguments (Entity.similar: src/compile/similar-select.ts).
  if (compiled) return compiled(scope, alias, nodes, field);
  if (nodes.some((node) => node.arguments?.length)) throw new NotCompiled('field_arguments', `arguments on ${type.name}.${name}`);
  if (follow) return pathSql(scope, field, model, alias, follow, nodes);
  throw new NotCompiled('computed_field', `field ${type.name}.${name}`);
}

/** A column as its GraphQL scalar serializes it (src/values/codecs.ts: ISO texts for times, numbers for money). */
function scalarSql(type: GraphQLOutputType, value: string): string {
  const named = getNamedType(type);
  const kind = isScalarType(named) ? SCALAR_KIND[named.name] : undefined;
  if (!kind) throw new NotCompiled('scalar', `type ${named.name}`);
  const { jsonSql } = CODECS[kind];
  // A list's elements are compiled only when they are served as they are stored.
  if (isListType(isNonNullType(type) ? type.ofType : type) && jsonSql(value) !== value) throw new NotCompiled('scalar', `${named.name} list`);
  return jsonSql(value);
}

interface Hop {
  relation: Relation;
  model: Model;
  alias: string;
  query: StepQuery;
}

/**
 * The value at the end of a relation path: the related rows joined one after another, the list's
 * `where` and `orderBy` applied where they were declared. With a list relation on the way the value
 * is a JSON array (empty, never null); otherwise the one record, column or null.
 */
function pathSql(scope: SelectionScope, field: GraphQLField<unknown, unknown>, model: Model, alias: string, path: FollowPath, nodes: FieldNode[]): string {
  const { statement } = scope;
  if (path.steps.length === 0 && path.column !== undefined) {
    if (!model.scalars.has(path.column)) throw new NotCompiled('computed_field', `column ${model.name}.${path.column}`);
    return columnOfPath(field, path, column(alias, path.column));
  }
  const hops: Hop[] = [];
  let current = model;
  for (const step of path.steps) {
    const relation = current.relations.get(stepName(step));
    if (!relation) throw new NotCompiled('relation', `relation ${current.name}.${stepName(step)}`);
    current = statement.model(relation.model);
    const query = stepQuery(step);
    if (Object.keys(query).some((key) => key !== 'where' && key !== 'orderBy')) throw new NotCompiled('relation', `relation query on ${relation.name}`);
    hops.push({ relation, model: current, alias: statement.alias(), query });
  }
  const lists = hops.filter((hop) => hop.relation.isList);
  // Through several lists, the rows come out in the order of the first list, then of the next...: each needs one.
  if (lists.length > 1 && lists.some((hop) => hop.query.orderBy === undefined)) throw new NotCompiled('relation', 'a path through an unordered list relation');
  if (lists.length && path.column !== undefined) throw new NotCompiled('relation', 'a list of columns');
  const last = hops[hops.length - 1]!;

  const from = hops
    .map((hop, index) => {
      const outer = index === 0 ? alias : hops[index - 1]!.alias;
      const joined = `${table(hop.model)} ${hop.alias}`;
      return index === 0 ? joined : `JOIN ${joined} ON ${joinCondition(outer, hop.alias, hop.relation.from, hop.relation.to)}`;
    })
    .join(' ');
  const conditions = [
    joinCondition(alias, hops[0]!.alias, hops[0]!.relation.from, hops[0]!.relation.to),
    ...hops.flatMap((hop) => (hop.query.where ? [whereSql(statement, hop.model, hop.alias, hop.query.where)] : [])),
  ].join(' AND ');

  const namedType = getNamedType(field.type);
  const value =
    path.column !== undefined
      ? columnOfPath(field, path, column(last.alias, path.column))
      : namedType instanceof GraphQLObjectType
        ? objectSql(scope, namedType, last.model, last.alias, nodes)
        : (() => {
            throw new NotCompiled('computed_field', `relation ${field.name} of a non-object type`);
          })();

  if (lists.length === 0) return `(SELECT ${value} FROM ${from} WHERE ${conditions} LIMIT 1)`;
  const order = lists.flatMap((hop) => orderTerms(hop));
  if (path.distinctById) {
    // The first record of each id in the path's order, then in that order.
    const keys = order.map((term, index) => `${term.expression} AS o${index}`);
    const distinct = `SELECT DISTINCT ON (${column(last.alias, 'id')}) ${value} AS j${keys.map((key) => `, ${key}`).join('')} FROM ${from} WHERE ${conditions} ORDER BY ${[column(last.alias, 'id'), ...order.map(termSql)].join(', ')}`;
    const outer = order.map((term, index) => termSql({ ...term, expression: `d.o${index}` }));
    return arraySql('d.j', outer, `FROM (${distinct}) d`);
  }
  return arraySql(value, order.map(termSql), `FROM ${from} WHERE ${conditions}`);
}

function columnOfPath(field: GraphQLField<unknown, unknown>, path: FollowPath, value: string): string {
  return path.asText ? CODECS.decimal.jsonSql(value) : scalarSql(field.type, value);
}

interface OrderTerm {
  expression: string;
  direction: 'ASC' | 'DESC';
}

function orderTerms(hop: Hop): OrderTerm[] {
  const orderBy = hop.query.orderBy;
  const list = orderBy === undefined ? [] : Array.isArray(orderBy) ? orderBy : [orderBy];
  return list.flatMap((entry) =>
    Object.entries(entry).map(([name, direction]) => {
      if (!hop.model.scalars.has(name) || (direction !== 'asc' && direction !== 'desc')) throw new NotCompiled('relation', `orderBy ${name}`);
      return { expression: column(hop.alias, name), direction: direction === 'asc' ? ('ASC' as const) : ('DESC' as const) };
    }),
  );
}

const termSql = (term: OrderTerm): string => `${term.expression} ${term.direction}`;
