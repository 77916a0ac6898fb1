// Stage two: the syntax tree checked against a resource's field registry. Everything that can be wrong
// with a syntactically valid filter is found here, so to-prisma.ts never has to fail.
import { AppError, type ErrorCode } from '../errors.ts';
import type { FilterCondition, FilterExpr, FilterScalar } from './ast.ts';
import {
  fieldRegistry,
  LEGACY_OPERATORS,
  type FieldSpec,
  type Operator,
  type RelationSpec,
  type Resource,
  type ResourceRegistry,
  type TypedValue,
} from './fields.ts';
import { abbreviate } from './lexer.ts';
import { closeMatches } from './suggest.ts';
import { parseValue } from './values.ts';

export interface ResolvedCondition {
  readonly type: 'condition';
  /** The field's registry entry: the resource's own, or the related resource's under `relation`. */
  readonly field: FieldSpec;
  readonly relation?: RelationSpec;
  /** Canonical: `in`/`nin` are already `in_any`/`nin_any` here. */
  readonly op: Operator;
  /** As written, for messages and to spot the deprecated aliases. */
  readonly writtenOp: string;
  /** Typed per `field.kind`; `null` only with eq/neq on a nullable field; one value unless a list operator. */
  readonly values: readonly TypedValue[];
  readonly position: number;
}

export interface ResolvedCombinator {
  readonly type: 'combinator';
  readonly kind: 'and' | 'or';
  readonly children: readonly ResolvedExpr[];
  readonly position: number;
}

export type ResolvedExpr = ResolvedCondition | ResolvedCombinator;

export interface ResolvedFilter<R extends Resource = Resource> {
  readonly resource: R;
  readonly root: ResolvedExpr;
  readonly deprecatedOperatorUsed: boolean;
  /** Fields of the resource itself named anywhere in the filter (not those behind `investor__`). */
  readonly fieldNames: ReadonlySet<string>;
  /** Some condition searches text (`contains`, `starts_with`): lists then rank by relevance. */
  readonly searchesText: boolean;
}

const SINGLE_VALUE_OPERATORS: ReadonlySet<Operator> = new Set([
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'starts_with',
]);
const TEXT_SEARCH_OPERATORS: ReadonlySet<Operator> = new Set(['contains', 'starts_with']);

/**
 * What the expression filters, for its messages: a resource's records (`filter`), or the groups of an
 * aggregate by their metric labels (`having`, src/aggregate/having.ts).
 */
export interface FilterSubject {
  /** The argument the expression came in; error details name it. */
  readonly parameter: string;
  /** `Unknown <noun> 'x' ...` */
  readonly noun: string;
  /** Where, in the message: `on entities`. */
  readonly scope: string;
  /** Said when nothing is close: where the names are listed. */
  readonly listing: string;
}

const filterOf = (resource: Resource): FilterSubject => ({
  parameter: 'filter',
  noun: 'filter field',
  scope: `on ${resource}`,
  listing: `GET /api/filters/${resource} lists the fields`,
});

/**
 * Checks a parsed filter against the fields of `resource`. Throws AppError with UNKNOWN_FILTER (field,
 * ref or relation not known here; the message lists close matches), UNSUPPORTED_OPERATOR (the message
 * lists the field's operators) or FILTER_VALIDATION_ERROR (a value that does not fit the field).
 */
export function resolveFilter<R extends Resource>(ast: FilterExpr, resource: R): ResolvedFilter<R> {
  return resolveFilterOver(ast, fieldRegistry(resource), filterOf(resource)) as ResolvedFilter<R>;
}

/** The same checks against any registry: the aggregates' `having` checks its metric labels this way. */
export function resolveFilterOver(ast: FilterExpr, registry: ResourceRegistry, subject: FilterSubject): ResolvedFilter {
  const state = { deprecatedOperatorUsed: false, fieldNames: new Set<string>(), searchesText: false };
  const resolve = (expr: FilterExpr): ResolvedExpr => {
    if (expr.type === 'combinator') {
      return { type: 'combinator', kind: expr.kind, children: expr.children.map(resolve), position: expr.position };
    }
    const condition = resolveCondition(expr, registry, subject);
    if (condition.writtenOp !== condition.op) state.deprecatedOperatorUsed = true;
    if (!condition.relation) state.fieldNames.add(condition.field.name);
    if (TEXT_SEARCH_OPERATORS.has(condition.op)) state.searchesText = true;
    return condition;
  };
  const root = resolve(ast);
  return { resource: registry.resource, root, ...state };
}

function resolveCondition(condition: FilterCondition, registry: ResourceRegistry, subject: FilterSubject): ResolvedCondition {
  const { relation, fields } = resolvePath(condition, registry, subject);
  const field = fields.get(condition.field);
  if (!field) throw unknownField(condition, registry, subject);
  const op = LEGACY_OPERATORS.get(condition.op) ?? condition.op;
  if (!isAllowed(op, field)) throw unsupportedOperator(condition, field, subject);
  return {
    type: 'condition',
    field,
    ...(relation ? { relation } : {}),
    op,
    writtenOp: condition.op,
    values: resolveValues(condition, field, op, subject),
    position: condition.position,
  };
}

function resolvePath(condition: FilterCondition, registry: ResourceRegistry, subject: FilterSubject) {
  const { ref, relation: relationName } = condition;
  if (ref !== undefined && !registry.refs.includes(ref)) {
    const allowed = registry.refs.length
      ? `only ${registry.refs.map((name) => `'${name}.'`).join(', ')} is allowed`
      : `${registry.resource} filters take no reference prefix`;
    throw unknownField(condition, registry, subject, `unknown reference '${ref}.': ${allowed}`);
  }
  if (relationName === undefined) return { relation: undefined, fields: registry.fields };
  const relation = registry.relations.get(relationName);
  if (!relation) {
    const names = [...registry.relations.keys()].map((name) => `${name}__`);
    const allowed = names.length ? `only ${names.join(', ')}` : `${registry.resource} filters have none`;
    throw unknownField(condition, registry, subject, `unknown relation '${relationName}__': ${allowed}`);
  }
  return { relation, fields: fieldRegistry(relation.resource).fields };
}

const isAllowed = (op: string, field: FieldSpec): op is Operator => (field.operators as readonly string[]).includes(op);

function resolveValues(condition: FilterCondition, field: FieldSpec, op: Operator, subject: FilterSubject): TypedValue[] {
  const { values } = condition;
  if (SINGLE_VALUE_OPERATORS.has(op) && values.length > 1) {
    const problem = `${condition.op} takes one value but found ${values.length} (use in_any for a list)`;
    throw invalidValue(condition, values[1] as FilterScalar, problem, subject);
  }
  return values.map((scalar) => {
    if (!scalar.quoted && scalar.text === 'null') return resolveNull(condition, field, op, scalar, subject);
    const result = field.readValue ? field.readValue(scalar.text) : parseValue(field.kind, scalar.text);
    if (!result.ok) {
      const why = 'outOfRange' in result && result.outOfRange !== undefined ? `, out of range: ${result.outOfRange}` : '';
      throw invalidValue(condition, scalar, `expected ${result.expected} but found ${quote(scalar.text)}${why}`, subject);
    }
    return result.value;
  });
}

function resolveNull(condition: FilterCondition, field: FieldSpec, op: Operator, scalar: FilterScalar, subject: FilterSubject): null {
  if (!field.nullable) {
    throw invalidValue(condition, scalar, `'${field.name}' is never null, so null cannot be compared with it`, subject);
  }
  if (op !== 'eq' && op !== 'neq') {
    throw invalidValue(condition, scalar, `null goes only with eq or neq, not ${condition.op}`, subject);
  }
  return null;
}

function writtenPath(condition: FilterCondition): string {
  const ref = condition.ref === undefined ? '' : `${condition.ref}.`;
  const relation = condition.relation === undefined ? '' : `${condition.relation}__`;
  return `${ref}${relation}${condition.field}`;
}

/** Every name a condition on this resource may use, `investor__x` included. */
function filterableNames(registry: ResourceRegistry): string[] {
  const names = [...registry.fields.keys()];
  for (const [name, relation] of registry.relations) {
    for (const field of fieldRegistry(relation.resource).fields.keys()) names.push(`${name}__${field}`);
  }
  return names;
}

function filterError(code: ErrorCode, message: string, subject: FilterSubject): AppError {
  return new AppError(code, message, { details: [{ path: subject.parameter, message }] });
}

function unknownField(condition: FilterCondition, registry: ResourceRegistry, subject: FilterSubject, reason?: string): AppError {
  const { ref, relation, field } = condition;
  const spellings = [relation === undefined ? field : `${relation}__${field}`];
  // `entity.id` on transactions most likely meant `entity_id`.
  if (ref !== undefined) spellings.push(`${ref}_${field}`);
  const matches = closeMatches(spellings, filterableNames(registry));
  const because = reason ? ` (${reason})` : '';
  const help = matches.length ? `close matches: ${matches.join(', ')}` : `no close match; ${subject.listing}`;
  const at = `'${abbreviate(writtenPath(condition))}' at position ${condition.position}`;
  return filterError('UNKNOWN_FILTER', `Unknown ${subject.noun} ${at} ${subject.scope}${because}; ${help}`, subject);
}

function unsupportedOperator(condition: FilterCondition, field: FieldSpec, subject: FilterSubject): AppError {
  const listOnly = (condition.op === 'in_all' || condition.op === 'nin_all') && field.type !== 'id_list';
  const why = listOnly ? ' (in_all and nin_all apply only to id lists such as tags)' : '';
  const message =
    `Operator '${abbreviate(condition.op)}' is not supported on '${writtenPath(condition)}' at position ` +
    `${condition.opPosition}${why}; allowed: ${field.operators.join(', ')}`;
  return filterError('UNSUPPORTED_OPERATOR', message, subject);
}

function invalidValue(condition: FilterCondition, scalar: FilterScalar, problem: string, subject: FilterSubject): AppError {
  const message = `Invalid value for '${writtenPath(condition)}' at position ${scalar.position}: ${problem}`;
  return filterError('FILTER_VALIDATION_ERROR', message, subject);
}

/** `'text'`, shortened, with control characters escaped so a message is always one printable line. */
function quote(text: string): string {
  const printable = abbreviate(text).replace(
    /[\u0000-\u001f\u007f]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `'${printable}'`;
}
