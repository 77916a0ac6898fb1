/**
 * What a field of a read type declares beside its GraphQL type and its column (src/schema/follow.ts):
 * whether the REST record shows it, the example the OpenAPI document gives, and how lists filter and
 * sort by it. The field's declaration in its Pothos object type is the one place these are written;
 * the filter registry, the REST selections, the OpenAPI examples and the exports read them from the
 * built schema (docs/adding-a-field.md).
 */
import type { GraphQLField } from 'graphql';
import type { FieldSpec, Operator, TypedValue } from '../filter/index.ts';

/** A JSON value, as an example is written. */
export type Example = string | number | boolean | null | readonly Example[] | { readonly [key: string]: Example };

/** How a column field filters, when not as its column's type says. */
export interface ColumnFilter {
  /** Compare another column of the record: a website by its normalised `website_domain`, an entity by `entity_id`. */
  readonly column?: string;
  /** The name filters use, when not the field's (the column's, by default, for `column`). */
  readonly name?: string;
  readonly operators?: readonly Operator[];
  /** Reads a value written in a filter when the column holds something other than the text as written. */
  readonly readValue?: (text: string) => { ok: true; value: TypedValue } | { ok: false; expected: string };
  /** `false`: filters, but `sort=` does not take it. */
  readonly sortable?: boolean;
}

export interface FieldFacts {
  /** `false`: a GraphQL-only field, left out of the REST record (and so of `fields=`, CSV and exports). */
  readonly record?: false;
  /** The OpenAPI document's example; an object field's is made from its type's fields' examples. */
  readonly example?: Example;
  /**
   * A column field filters and sorts as its column's type allows unless this says otherwise: `false`
   * (not at all), a ColumnFilter, or a whole filter field (an id lookup through a relation).
   */
  readonly filter?: false | ColumnFilter | FieldSpec;
}

export const FACTS = 'facts';

/** The facts a field declared (none: a record field that filters by its column, if it has one). */
export function factsOf(field: GraphQLField<unknown, unknown>): FieldFacts {
  return ((field.extensions as Record<string, unknown>)[FACTS] as FieldFacts | undefined) ?? {};
}

/** Extensions of a field with no column or path of its own (a computed field) that declares facts. */
export const declared = (facts: FieldFacts) => ({ extensions: { [FACTS]: facts } });

/** Options of a field that only declares its example: `t.exposeInt('id', example(14))`. */
export const example = (value: Example) => declared({ example: value });
