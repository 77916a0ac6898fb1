/**
 * `Entity.similar` in a compiled read (docs/compiled-reads.md): the similar statement's WITH clause
 * (similar-sql.ts) as a correlated subquery per entity row, so a list's entities and their similar
 * companies are one statement, not one more per row. Its answer is projected onto the selection as
 * the resolver's would be serialized: the same keys in the same order, scores and weights as JSON
 * numbers. The resolver (similar-schema.ts) stays the reference; the equivalence test compares both.
 *
 * Compiled when `limit` is a literal or a variable (bound per request, checked as the resolver checks
 * it) and there is no `filter`: a filter's SQL depends on its text, which the selection, written once
 * per operation, cannot. With a filter the operation falls back (`field_arguments`).
 */
import { getNamedType, GraphQLObjectType, Kind, type FieldNode, type GraphQLField, type ValueNode } from 'graphql';
import { requirePrincipal } from '../auth/principal.ts';
import { findAppError } from '../errors.ts';
import { SIMILAR_LIMIT } from '../schema/entity.ts';
import { INVESTORS } from '../schema/investor.ts';
import { parseWindow } from '../schema/list.ts';
import { subfields, type SelectionScope } from './select.ts';
import { similarCtes, SIMILAR_ROWS } from './similar-sql.ts';
import { NotCompiled, type Statement } from './statement.ts';

/** The candidates the resolver reads with no filter: the entity list's own scope (live entities). */
const NO_FILTER_WHERE = { deleted_at: null };

/** The checked limit: the resolver's own reading of it (parseWindow), its error theirs to raise. */
const checkedLimit = (limit: unknown): number => parseWindow({ limit: (limit as number | null | undefined) ?? SIMILAR_LIMIT.default }, SIMILAR_LIMIT.max).limit;

function limitSql(statement: Statement, value: ValueNode | undefined): string {
  if (!value || value.kind === Kind.NULL) return statement.param(SIMILAR_LIMIT.default);
  if (value.kind === Kind.VARIABLE) {
    const name = value.name.value;
    return statement.late((_context, variables) => checkedLimit(variables[name]));
  }
  if (value.kind !== Kind.INT) throw new NotCompiled('invalid_arguments', 'Entity.similar(limit:) not an integer');
  try {
    return statement.param(checkedLimit(Number(value.value)));
  } catch (error) {
    if (findAppError(error)) throw new NotCompiled('invalid_arguments', 'Entity.similar(limit:) out of range');
    throw error;
  }
}

const objectOf = (field: GraphQLField<unknown, unknown> | undefined): GraphQLObjectType => {
  const type = field && getNamedType(field.type);
  if (!(type instanceof GraphQLObjectType)) throw new NotCompiled('computed_field', `similar's ${field?.name ?? 'field'}`);
  return type;
};

/** A JSON object of `columns` (response key → SQL), written compactly as the compiled objects are. */
const objectSql = (columns: [string, string][]): string => `(SELECT row_to_json(o) FROM (SELECT ${columns.map(([key, value]) => `${value} AS "${key}"`).join(', ')}) o)`;

/** A JSON array of `element` over the elements `e` (alias) of a JSON array, in their order. */
const arrayOf = (element: string, array: string, alias: string): string =>
  `(SELECT coalesce('[' || string_agg(${element}::text, ',' ORDER BY ${alias}.n) || ']', '[]')::json FROM json_array_elements(${array}) WITH ORDINALITY ${alias}(e, n))`;

/** The selected keys of `type` over a JSON object `json`, each field read by `read` (null: not a field it knows). */
function projection(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[], read: (name: string, nodes: FieldNode[]) => string | undefined): string {
  const columns = [...subfields(scope, type, nodes)].map(([key, fieldNodes]): [string, string] => {
    const name = fieldNodes[0]!.name.value;
    if (name === '__typename') return [key, `'${type.name}'::text`];
    if (fieldNodes.some((node) => node.arguments?.length)) throw new NotCompiled('field_arguments', `arguments on ${type.name}.${name}`);
    const value = read(name, fieldNodes);
    if (value === undefined) throw new NotCompiled('computed_field', `field ${type.name}.${name}`);
    return [key, value];
  });
  return objectSql(columns);
}

/** Entity.similar's JSON for the entity row at `alias`. */
export function similarFieldSql(scope: SelectionScope, alias: string, nodes: readonly FieldNode[], field: GraphQLField<unknown, unknown>): string {
  const { statement } = scope;
  const args = nodes[0]!.arguments ?? [];
  const filter = args.find((argument) => argument.name.value === 'filter');
  if (filter && filter.value.kind !== Kind.NULL) throw new NotCompiled('field_arguments', 'Entity.similar(filter:)');
  const limit = limitSql(statement, args.find((argument) => argument.name.value === 'limit')?.value);
  // Investor reasons need read:investors, the caller's (similar-schema.ts): bound per request.
  const investors = statement.late((context) => requirePrincipal(context.principal).permissions.has(INVESTORS.read as string));
  const source = statement.alias();
  const answer = statement.alias();
  const ctes = similarCtes(statement, { source: `${source}.id`, top: limit, investors, pruning: statement.param(true) }, NO_FILTER_WHERE);

  const companies = objectOf(field);
  const company = objectOf(companies.getFields().data);
  const reason = objectOf(company.getFields().reasons);
  const page = objectOf(companies.getFields().page);
  const companyAlias = statement.alias();
  const reasonAt = statement.alias();
  const reasonSql = (reasonNodes: FieldNode[]) =>
    arrayOf(
      projection(scope, reason, reasonNodes, (name) =>
        name === 'weight' ? `(${reasonAt}.e->>'weight')::float8` : name === 'kind' || name === 'detail' ? `${reasonAt}.e->>'${name}'` : undefined,
      ),
      `${companyAlias}.e->'reasons'`,
      reasonAt,
    );
  const body = projection(scope, companies, nodes, (name, fieldNodes) => {
    if (name === 'page') return projection(scope, page, fieldNodes, (pageName) => (pageName === 'limit' ? `${limit}::int` : undefined));
    if (name !== 'data') return undefined;
    const element = projection(scope, company, fieldNodes, (companyName, companyNodes) => {
      if (companyName === 'id') return `(${companyAlias}.e->>'id')::int`;
      if (companyName === 'name') return `${companyAlias}.e->>'name'`;
      if (companyName === 'score') return `(${companyAlias}.e->>'score')::float8`;
      return companyName === 'reasons' ? reasonSql(companyNodes) : undefined;
    });
    return arrayOf(element, `${answer}.rows`, companyAlias);
  });
  // The companies are computed once per row (a lateral), then projected.
  return `(SELECT ${body} FROM (SELECT ${alias}.id) ${source} CROSS JOIN LATERAL (${ctes} SELECT ${SIMILAR_ROWS} AS rows) ${answer})`;
}
