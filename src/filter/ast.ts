/**
 * The syntax tree of a filter expression, as the parser returns it: syntax only, no knowledge of fields.
 * Positions are 0-based offsets into the filter text, counted in UTF-16 code units (JavaScript string
 * indices), so `text.slice(position)` starts at the node.
 */

export type FilterExpr = FilterCombinator | FilterCondition;

export interface FilterCombinator {
  readonly type: 'combinator';
  readonly kind: 'and' | 'or';
  readonly children: readonly FilterExpr[];
  /** Where the keyword `and`/`or` starts. */
  readonly position: number;
}

export interface FilterCondition {
  readonly type: 'condition';
  /** `entity` in `entity.name:x`; absent when not written. */
  readonly ref?: string;
  /** `investor` in `investor__total_invested_usd[gte]:1`; absent when not written. */
  readonly relation?: string;
  readonly field: string;
  /**
   * The operator as written (`in` stays `in`, so the deprecated aliases stay visible), `eq` for the
   * `field:value` shorthand. The parser accepts any word here; resolve decides what it means.
   */
  readonly op: string;
  readonly values: readonly FilterScalar[];
  /** Where the condition starts (its ref, relation or field). */
  readonly position: number;
  /** Where the operator word starts, or where the ':' is for the shorthand. */
  readonly opPosition: number;
}

export interface FilterScalar {
  /** The value with quotes removed and escapes decoded. */
  readonly text: string;
  /** Quoted values are always literal text: `"null"` is the string null, never SQL NULL. */
  readonly quoted: boolean;
  /** Where the value starts (its opening quote when quoted). */
  readonly position: number;
}

/** The limits grammar.md sets; the parser enforces them while it reads. */
export const FILTER_LIMITS = Object.freeze({
  maxLength: 4096,
  maxDepth: 16,
  maxConditions: 200,
  maxListValues: 500,
});

/** The error codes a filter can fail with; anything else escaping the filter module is a bug. */
export const FILTER_ERROR_CODES = Object.freeze([
  'FILTER_PARSE_ERROR',
  'UNKNOWN_FILTER',
  'UNSUPPORTED_OPERATOR',
  'FILTER_VALIDATION_ERROR',
] as const);

export type FilterErrorCode = (typeof FILTER_ERROR_CODES)[number];
