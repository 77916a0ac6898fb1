/**
 * The REST record of a type, read from its fields' declarations: every field but those that take
 * arguments (a query, not data) or declare `record: false` (GraphQL-only), in declaration order. An
 * object field shows its type's record, and a record of another resource only its summary (the fields
 * any reader of the embedding record sees: an entity as `{id, name}`). The REST operations' selections,
 * `fields=`, the OpenAPI examples and the exports' columns all follow it.
 */
import { getNamedType, getNullableType, isListType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { ACCESS, type TypeAccess } from '../auth/permissions.ts';
import { factsOf, type Example } from './field-facts.ts';

export interface RecordField {
  readonly name: string;
  readonly field: GraphQLField<unknown, unknown>;
  /** The record of the nested type, for an object (or a list of objects). */
  readonly nested?: readonly RecordField[];
}

const cache = new WeakMap<GraphQLObjectType, readonly RecordField[]>();

function summaryOf(type: GraphQLObjectType): readonly string[] {
  return ((type.extensions as Record<string, unknown>)[ACCESS] as TypeAccess | undefined)?.summary ?? [];
}

function recordOf(type: GraphQLObjectType, only?: readonly string[]): RecordField[] {
  return Object.values(type.getFields()).flatMap((field): RecordField[] => {
    if (only ? !only.includes(field.name) : field.args.length > 0 || factsOf(field).record === false) return [];
    const named = getNamedType(field.type);
    if (!isObjectType(named)) return [{ name: field.name, field }];
    const summary = summaryOf(named);
    return [{ name: field.name, field, nested: summary.length ? recordOf(named, summary) : recordFields(named) }];
  });
}

/** The fields of `type`'s REST record, nested records included. */
export function recordFields(type: GraphQLObjectType): readonly RecordField[] {
  let fields = cache.get(type);
  if (!fields) cache.set(type, (fields = recordOf(type)));
  return fields;
}

/** The record as a GraphQL selection set's body: `id name tags { id name type }`. */
export function recordSelection(fields: readonly RecordField[]): string {
  return fields.map((field) => (field.nested ? `${field.name} { ${recordSelection(field.nested)} }` : field.name)).join(' ');
}

/**
 * The record's example, from its fields' declared examples: an object field's is its type's record
 * example (in a list, one of them) unless the field declares its own. Undefined where a field has none.
 */
export function recordExample(fields: readonly RecordField[]): Example | undefined {
  const example: Record<string, Example> = {};
  for (const { name, field, nested } of fields) {
    const declared = factsOf(field).example;
    const value = declared !== undefined ? declared : nested ? nestedExample(field, nested) : undefined;
    if (value === undefined) return undefined;
    example[name] = value;
  }
  return example;
}

function nestedExample(field: GraphQLField<unknown, unknown>, nested: readonly RecordField[]): Example | undefined {
  const one = recordExample(nested);
  if (one === undefined) return undefined;
  return isListType(getNullableType(field.type)) ? [one] : one;
}
