// Stage three: a resolved filter as a Prisma where input. Pure and total: every resolved condition has
// exactly one translation, so nothing here can fail on user input.
//
// NULL is handled explicitly rather than left to SQL's three-valued logic: `neq` and `nin_any` are the
// exact complements of `eq` and `in_any`, so on a nullable column they also match rows where it is NULL
// (SQL's `col <> v` would silently drop them). The in-memory evaluator (test/unit/filter/evaluate.ts)
// implements the same rules, and a differential test holds the two together.
import type { IdListField, Operator, Resource, TypedValue, WhereFor, WhereFragment } from './fields.ts';
import type { ResolvedCondition, ResolvedExpr, ResolvedFilter } from './resolve.ts';

/**
 * For `in_all`/`nin_all` conditions with many values: the ids of the records (of the condition's
 * resource) that have every one of the values, found beforehand (src/sql/all-of.ts). Such a condition
 * then reads `id IN (those)` / `id NOT IN (those)` instead of one EXISTS per value.
 */
export type AllOfSets = ReadonlyMap<ResolvedCondition, readonly number[]>;

/** The Prisma where input of a resolved filter, for the resource it was resolved against. */
export function toPrismaWhere<R extends Resource>(filter: ResolvedFilter<R>, sets?: AllOfSets): WhereFor<R> {
  // The registry of R builds fragments of R's WhereInput (see fields/types.ts, WhereFragment).
  return exprWhere(filter.root, sets) as WhereFor<R>;
}

function exprWhere(expr: ResolvedExpr, sets: AllOfSets | undefined): WhereFragment {
  if (expr.type === 'combinator') {
    const children = expr.children.map((child) => exprWhere(child, sets));
    return expr.kind === 'and' ? { AND: children } : { OR: children };
  }
  const set = sets?.get(expr);
  const where = set ? { id: expr.op === 'in_all' ? { in: [...set] } : { notIn: [...set] } } : conditionWhere(expr);
  return expr.relation ? expr.relation.wrap(where) : where;
}

function conditionWhere({ field, op, values }: ResolvedCondition): WhereFragment {
  switch (field.target) {
    case 'column': {
      const column = field.path[field.path.length - 1] as string;
      const where = columnWhere(column, op, values, field.nullable);
      // Columns behind to-one relations: ['entity', 'name'] → {entity: {name: ...}}.
      return field.path.slice(0, -1).reduceRight<WhereFragment>((inner, key) => ({ [key]: inner }), where);
    }
    case 'any_column':
      return anyColumnWhere(field.columns, op, values);
    case 'id_list':
      // Id lists are int-kinded and never nullable, so resolve left only numbers.
      return idListWhere(field, op, values as readonly number[]);
    case 'lookup':
      // Lookups take eq and in_any only, and read their values as text.
      return field.match(values as readonly string[]);
  }
}

function columnWhere(column: string, op: Operator, values: readonly TypedValue[], nullable: boolean): WhereFragment {
  const value = values[0];
  switch (op) {
    case 'eq':
      return value === null ? { [column]: null } : { [column]: { equals: value } };
    case 'neq':
      return value === null ? { [column]: { not: null } } : orNull(column, { not: value }, nullable);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { [column]: { [op]: value } };
    case 'in_any':
      return { [column]: { in: [...values] } };
    case 'nin_any':
      return orNull(column, { notIn: [...values] }, nullable);
    case 'contains':
      return { [column]: { contains: escapeLike(value as string), mode: 'insensitive' } };
    case 'starts_with':
      return { [column]: { startsWith: escapeLike(value as string), mode: 'insensitive' } };
    case 'in_all':
    case 'nin_all':
      return unreachable(op, column);
  }
}

/**
 * Prisma writes `contains`/`startsWith` as ILIKE without escaping the pattern's wildcards, so `%` and
 * `_` in a search would match anything; escaped (`\` is ILIKE's default escape) they match themselves.
 */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function orNull(column: string, filter: WhereFragment, nullable: boolean): WhereFragment {
  return nullable ? { OR: [{ [column]: filter }, { [column]: null }] } : { [column]: filter };
}

/** Some column matches for eq/in_any; for the complements, every column is NULL or differs. */
function anyColumnWhere(columns: readonly string[], op: Operator, values: readonly TypedValue[]): WhereFragment {
  switch (op) {
    case 'eq':
    case 'in_any':
      return { OR: columns.map((column) => columnWhere(column, op, values, true)) };
    case 'neq':
    case 'nin_any':
      return { AND: columns.map((column) => columnWhere(column, op, values, true)) };
    default:
      return unreachable(op, columns.join('|'));
  }
}

function idListWhere(field: IdListField, op: Operator, values: readonly number[]): WhereFragment {
  const ids = [...new Set(values)];
  switch (op) {
    case 'in_any':
      return field.match('some', { in: ids });
    case 'nin_any':
      return field.match('none', { in: ids });
    case 'in_all':
      return { AND: ids.map((id) => field.match('some', id)) };
    case 'nin_all':
      // "Does not have all of them" is "lacks at least one of them".
      return { OR: ids.map((id) => field.match('none', id)) };
    default:
      return unreachable(op, field.name);
  }
}

/** Resolve never lets these through; reaching one is a registry bug, not a user error. */
function unreachable(op: Operator, where: string): never {
  throw new Error(`filter: operator ${op} has no translation for ${where}`);
}
