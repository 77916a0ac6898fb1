/**
 * One SQL statement being written: its parameters (always bound, never spliced into the text) and
 * fresh table aliases for the subqueries it nests.
 */
import { quoteIdentifier } from '../db/client.ts';
import type { Models, Model } from './model.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { toParameter } from '../values/codecs.ts';

/**
 * Why an operation runs through the resolvers instead: a closed set, so that each can be counted
 * (`compiled_reads_fallback_total{reason}`) and each that remains is documented (docs/compiled-reads.md).
 */
export const FALLBACK_REASONS = [
  /** A root field that is not a declared list or record read (management, usage, `me`...). */
  'root_field',
  /** A field whose resolver computes its value: no column, relation or declared path behind it. */
  'computed_field',
  /** Arguments on a field below the root. */
  'field_arguments',
  /** A directive other than @skip/@include, or one whose condition is not a literal or a variable. */
  'directive',
  /** A fragment on another type than the one selected. */
  'type_condition',
  /** A scalar (or a list of one) the compiler has no codec for. */
  'scalar',
  /** A relation, path or relation order the compiler does not translate. */
  'relation',
  /** A filter, scope or cursor condition the compiler does not write as SQL. */
  'where',
  /** A sort key the compiler does not write as SQL. */
  'sort',
  /** Variables that fail coercion: the executor reports them. */
  'invalid_variables',
  /** Arguments the resolvers refuse (a bad filter, limit or cursor): they word the error and its path. */
  'invalid_arguments',
] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/** Thrown for any input the compiler does not translate; the caller then runs the resolvers instead. */
export class NotCompiled extends Error {
  constructor(
    readonly reason: FallbackReason,
    what: string,
  ) {
    super(`not compiled (${reason}): ${what}`);
  }
}

export class Statement {
  readonly params: unknown[];
  private aliases = 0;

  /**
   * `params`: those of a part written earlier (a cached selection) that this statement includes;
   * `aliasPrefix` keeps this statement's aliases apart from that part's.
   */
  constructor(
    readonly models: Models,
    params: readonly unknown[] = [],
    private readonly aliasPrefix = 't',
  ) {
    this.params = [...params];
  }

  /** `$n` for a value, converted to what the driver sends unambiguously (ISO text for times, text for bigints). */
  param(value: unknown): string {
    this.params.push(toParameter(value));
    return `$${this.params.length}`;
  }

  /**
   * `$n` for a value known only per request (a variable's value, the caller's permissions) in a part
   * written once per operation (a selection): `bindLate` reads it before each run. `value` may throw the
   * AppError the resolvers would raise; the request then goes to them.
   */
  late(value: (context: GraphQLContext, variables: Readonly<Record<string, unknown>>) => unknown): string {
    this.params.push(new LateParam(value));
    return `$${this.params.length}`;
  }

  alias(): string {
    this.aliases += 1;
    return `${this.aliasPrefix}${this.aliases}`;
  }

  model(name: string): Model {
    const model = this.models.get(name);
    if (!model) throw new NotCompiled('relation', `model ${name}`);
    return model;
  }
}

/** A parameter whose value each request gives (Statement.late). */
export class LateParam {
  constructor(readonly value: (context: GraphQLContext, variables: Readonly<Record<string, unknown>>) => unknown) {}
}

const withLate = new WeakMap<readonly unknown[], boolean>();
/** Whether a selection's parameters hold late ones: looked at once per array, not per request. */
function hasLate(params: readonly unknown[]): boolean {
  let late = withLate.get(params);
  if (late === undefined) withLate.set(params, (late = params.some((param) => param instanceof LateParam)));
  return late;
}

/** The parameters with each request's values in place of the late ones; the same array when there are none. */
export function bindLate(params: readonly unknown[], context: GraphQLContext, variables: Readonly<Record<string, unknown>>): readonly unknown[] {
  if (!hasLate(params)) return params;
  return params.map((param) => (param instanceof LateParam ? toParameter(param.value(context, variables)) : param));
}

export const column = (alias: string, name: string): string => `${alias}.${quoteIdentifier(name)}`;

export const table = (model: Model): string => quoteIdentifier(model.table);

/** `inner.to = outer.from` for every column pair of a relation. */
export function joinCondition(outer: string, inner: string, from: readonly string[], to: readonly string[]): string {
  return from.map((name, index) => `${column(inner, to[index]!)} = ${column(outer, name)}`).join(' AND ');
}
