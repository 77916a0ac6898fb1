/**
 * The filter language (defined in grammar.md): `total_funding_usd[gte]:1000000`,
 * `and(hq_country:DEU, or(tags[in_all]:3|7, investor__total_invested_usd[gte]:1000000))`.
 *
 * Three pure stages, after PostgREST: `parseFilter` (syntax only, positions kept) → `resolveFilter`
 * (against one resource's field registry) → `toPrismaWhere` (total; never fails). `compileFilter` runs
 * all three and is what list endpoints call.
 *
 * Every failure is an AppError with one of FILTER_ERROR_CODES and one `details` row whose path is
 * `filter`. Messages name the 0-based character position of the problem:
 * - FILTER_PARSE_ERROR: `Invalid filter at position 12: expected ']' but found ':'`, and for the limits
 *   `Invalid filter at position 80: nesting deeper than 16 levels` (also `more than 200 conditions`,
 *   `more than 500 values in one list`) or `Invalid filter: it is 5000 characters long, at most 4096 are allowed`.
 * - UNKNOWN_FILTER: `Unknown filter field 'hq_contry' at position 0 on entities; close matches: hq_country`.
 * - UNSUPPORTED_OPERATOR: `Operator 'gt' is not supported on 'is_unicorn' at position 11; allowed: eq, neq`.
 * - FILTER_VALIDATION_ERROR: `Invalid value for 'total_funding_usd' at position 23: expected a whole number of US
 *   dollars but found 'abc'`.
 */
import { parseOptionalFilter } from './parser.ts';
import { resolveFilter } from './resolve.ts';
import { toPrismaWhere, type AllOfSets } from './to-prisma.ts';
import type { Resource, WhereFor } from './fields.ts';
import type { ResolvedCondition, ResolvedExpr } from './resolve.ts';

export { FILTER_ERROR_CODES, FILTER_LIMITS } from './ast.ts';
export type { FilterCombinator, FilterCondition, FilterErrorCode, FilterExpr, FilterScalar } from './ast.ts';
export { parseFilter, parseOptionalFilter } from './parser.ts';
export { printFilter } from './print.ts';
export { resolveFilter, resolveFilterOver } from './resolve.ts';
export type { FilterSubject, ResolvedCombinator, ResolvedCondition, ResolvedExpr, ResolvedFilter } from './resolve.ts';
export { toPrismaWhere, type AllOfSets } from './to-prisma.ts';
export { describeFilterFields, sortableFields } from './describe.ts';
export { closeMatches } from './suggest.ts';
export type { FilterFieldDescription, SortableField } from './describe.ts';
export { fieldRegistry, installFieldRegistries, isResource, RESOURCES } from './fields.ts';
export type {
  ColumnField,
  FieldSpec,
  FieldType,
  Operator,
  OrderByFor,
  RelatedGrouping,
  RelationSpec,
  Resource,
  ResourceRegistry,
  TypedValue,
  ValueKind,
  WhereFor,
} from './fields.ts';

export interface CompiledFilter<R extends Resource> {
  /** The Prisma where input; `undefined` when there is no filter (missing, empty or only whitespace). */
  readonly where: WhereFor<R> | undefined;
  /** The filter used `in` or `nin`: REST responses then carry `Deprecation: true`. */
  readonly deprecatedOperatorUsed: boolean;
  /**
   * Whether a condition anywhere in the filter names this field of the resource (with or without the
   * `entity.` prefix; `investor__x` names the investor's `x`, not the entity's). Soft-deleted entities are
   * hidden unless the filter names `deleted_at`.
   */
  namesField(name: string): boolean;
  /** Some condition searches text (`name[contains]:air`); without a `sort`, lists then rank matches. */
  readonly searchesText: boolean;
  /**
   * `in_all`/`nin_all` conditions with more than ALL_OF_EXISTS_LIMIT distinct values. Written as one
   * EXISTS per value, PostgreSQL plans one semi-join each, and planning grows much faster than the
   * number of joins (500 values: minutes, then the embedded database crashed); the list resolver finds
   * their matching ids first (src/sql/all-of.ts) and passes them to `whereWith`.
   */
  readonly manyValuedAllOf: readonly ResolvedCondition[];
  /** The where input with those conditions replaced by the precomputed id sets. */
  whereWith(sets: AllOfSets): WhereFor<R> | undefined;
  /** The other resources its conditions reach (`investor__name` reaches investors): reading through it needs their read permission too. */
  readonly relatedResources: ReadonlySet<Resource>;
}

/** Up to this many values, `in_all`/`nin_all` stay one EXISTS per value (cheap to plan). */
export const ALL_OF_EXISTS_LIMIT = 4;

function relatedResources(expr: ResolvedExpr, found = new Set<Resource>()): Set<Resource> {
  if (expr.type === 'combinator') for (const child of expr.children) relatedResources(child, found);
  else if (expr.relation) found.add(expr.relation.resource);
  return found;
}

function manyValuedAllOf(expr: ResolvedExpr, found: ResolvedCondition[] = []): ResolvedCondition[] {
  if (expr.type === 'combinator') {
    for (const child of expr.children) manyValuedAllOf(child, found);
  } else if ((expr.op === 'in_all' || expr.op === 'nin_all') && new Set(expr.values).size > ALL_OF_EXISTS_LIMIT) {
    found.push(expr);
  }
  return found;
}

/**
 * Parses, checks and translates a filter for one resource (ecosystems use `entities`). Throws AppError
 * with FILTER_PARSE_ERROR, UNKNOWN_FILTER, UNSUPPORTED_OPERATOR or FILTER_VALIDATION_ERROR.
 */
export function compileFilter<R extends Resource>(resource: R, text: string | null | undefined): CompiledFilter<R> {
  const ast = parseOptionalFilter(text);
  if (!ast) {
    return {
      where: undefined,
      deprecatedOperatorUsed: false,
      namesField: () => false,
      searchesText: false,
      manyValuedAllOf: [],
      whereWith: () => undefined,
      relatedResources: new Set(),
    };
  }
  const resolved = resolveFilter(ast, resource);
  return {
    where: toPrismaWhere(resolved),
    manyValuedAllOf: manyValuedAllOf(resolved.root),
    whereWith: (sets) => toPrismaWhere(resolved, sets),
    deprecatedOperatorUsed: resolved.deprecatedOperatorUsed,
    namesField: (name) => resolved.fieldNames.has(name),
    searchesText: resolved.searchesText,
    relatedResources: relatedResources(resolved.root),
  };
}
