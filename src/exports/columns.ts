/**
 * An export's columns, derived from the record its list returns (src/schema/record-fields.ts): the
 * same fields in the same order, each with its type as clients see it (`columns` of an export) and as
 * Parquet stores it. A field added to a record type is exported, and typed, with no edit here.
 */
import { getNamedType, getNullableType, isEnumType, isListType, isObjectType, isScalarType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { recordTypeName } from '../changes/resources.ts';
import { recordFields, type RecordField } from '../schema/record-fields.ts';
import { changeResourceOf, type ExportResource } from './resources.ts';

/** A Parquet schema element (hyparquet's SchemaElement, the fields this module sets). */
export interface ParquetElement {
  name: string;
  type?: 'BOOLEAN' | 'INT32' | 'INT64' | 'DOUBLE' | 'BYTE_ARRAY';
  converted_type?: 'UTF8' | 'DATE' | 'TIMESTAMP_MILLIS' | 'LIST';
  logical_type?: { type: 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: 'MILLIS' };
  repetition_type: 'REQUIRED' | 'OPTIONAL' | 'REPEATED';
  num_children?: number;
}

/** How a value of a column is typed, as an export's `columns` says it and as Parquet stores it. */
export type ScalarKind = 'integer' | 'number' | 'string' | 'boolean' | 'date-time' | 'date';
export type ColumnType =
  | { kind: ScalarKind }
  | { kind: 'array'; of: ColumnType }
  | { kind: 'object'; fields: readonly ExportColumn[] };

export interface ExportColumn {
  readonly name: string;
  readonly type: ColumnType;
}

/** Scalars by GraphQL name; an enum is a string. JSON has no fixed shape: refused at start-up, never written as text. */
const SCALARS: Readonly<Record<string, ScalarKind>> = {
  Int: 'integer',
  Money: 'integer',
  Float: 'number',
  String: 'string',
  ID: 'string',
  Boolean: 'boolean',
  DateTime: 'date-time',
  Date: 'date',
};

function columnType(type: GraphQLOutputType, nested: readonly RecordField[] | undefined, where: string): ColumnType {
  const inner = getNullableType(type);
  if (isListType(inner)) return { kind: 'array', of: columnType(inner.ofType, nested, where) };
  const named = getNamedType(inner);
  if (isObjectType(named)) return { kind: 'object', fields: (nested ?? recordFields(named)).map(toColumn) };
  if (isEnumType(named)) return { kind: 'string' };
  const kind = isScalarType(named) ? SCALARS[named.name] : undefined;
  if (!kind) throw new Error(`${where}: no export type for ${named.name} (declare one in src/exports/columns.ts)`);
  return { kind };
}

function toColumn(field: RecordField): ExportColumn {
  return { name: field.name, type: columnType(field.field.type, field.nested, field.name) };
}

/** The columns of `resource`'s records, only `fields` (and `id`, always) when given, in record order. */
export function exportColumns(schema: GraphQLSchema, resource: ExportResource, fields?: readonly string[] | null): ExportColumn[] {
  const type = schema.getType(recordTypeName(changeResourceOf(resource)));
  if (!isObjectType(type)) throw new Error(`No record type for ${resource}`);
  const wanted = fields ? new Set(['id', ...fields]) : undefined;
  return recordFields(type).filter((field) => !wanted || wanted.has(field.name)).map(toColumn);
}

/** `array<object>`, `date-time`: a column's type as the export's `columns` name it. */
export function typeName(type: ColumnType): string {
  if (type.kind === 'array') return `array<${typeName(type.of)}>`;
  return type.kind;
}

const LEAVES: Readonly<Record<string, Omit<ParquetElement, 'name' | 'repetition_type'>>> = {
  integer: { type: 'INT64' },
  number: { type: 'DOUBLE' },
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  boolean: { type: 'BOOLEAN' },
  'date-time': { type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } },
  date: { type: 'INT32', converted_type: 'DATE' },
};

/** The Parquet schema of the columns (every value optional: a record's null is a Parquet null), flattened depth first. */
export function parquetSchema(columns: readonly ExportColumn[]): ParquetElement[] {
  return [{ name: 'root', repetition_type: 'REQUIRED', num_children: columns.length }, ...columns.flatMap((column) => elements(column.name, column.type))];
}

function elements(name: string, type: ColumnType): ParquetElement[] {
  if (type.kind === 'array') {
    // The standard three-level LIST: an optional group, a repeated `list`, its `element`.
    return [
      { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      ...elements('element', type.of),
    ];
  }
  if (type.kind === 'object') {
    return [{ name, repetition_type: 'OPTIONAL', num_children: type.fields.length }, ...type.fields.flatMap((field) => elements(field.name, field.type))];
  }
  return [{ name, repetition_type: 'OPTIONAL', ...LEAVES[type.kind] }];
}
