/**
 * One SQL statement being written: its parameters (always bound, never spliced into the text) and
 * fresh table aliases for the subqueries it nests.
 */
import { quoteIdentifier } from '../db/client.ts';
import type { Models, Model } from './model.ts';

/** Thrown for any input the compiler does not translate; the caller then runs the resolvers instead. */
export class NotCompiled extends Error {
  constructor(what: string) {
    super(`not compiled: ${what}`);
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

  alias(): string {
    this.aliases += 1;
    return `${this.aliasPrefix}${this.aliases}`;
  }

  model(name: string): Model {
    const model = this.models.get(name);
    if (!model) throw new NotCompiled(`model ${name}`);
    return model;
  }
}

function toParameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(toParameter);
  if (value !== null && typeof value === 'object') return String(value); // Prisma Decimal
  return value;
}

export const column = (alias: string, name: string): string => `${alias}.${quoteIdentifier(name)}`;

export const table = (model: Model): string => quoteIdentifier(model.table);

/** `inner.to = outer.from` for every column pair of a relation. */
export function joinCondition(outer: string, inner: string, from: readonly string[], to: readonly string[]): string {
  return from.map((name, index) => `${column(inner, to[index]!)} = ${column(outer, name)}`).join(' AND ');
}
