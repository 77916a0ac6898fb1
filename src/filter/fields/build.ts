// Small constructors so each resource file reads as a table of its fields.
import type {
  AnyColumnField,
  ColumnField,
  FieldSpec,
  FieldType,
  IdListField,
  IdMatch,
  LookupField,
  Operator,
  RelatedGrouping,
  RelationSpec,
  Resource,
  ResourceRegistry,
  ValueKind,
  WhereFragment,
} from './types.ts';

const ORDERED: readonly Operator[] = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in_any', 'nin_any'];
const EQUALITY: readonly Operator[] = ['eq', 'neq', 'in_any', 'nin_any'];
const BOOLEAN: readonly Operator[] = ['eq', 'neq'];
const ID_LIST: readonly Operator[] = ['in_any', 'nin_any', 'in_all', 'nin_all'];
const TEXT: readonly Operator[] = [...ORDERED, 'contains', 'starts_with'];

const TYPE_OF_KIND: Readonly<Record<ValueKind, FieldType>> = {
  int: 'int',
  float: 'number',
  decimal: 'number',
  money: 'money',
  bool: 'bool',
  string: 'string',
  uuid: 'string',
  date: 'date',
  datetime: 'datetime',
};

function operatorsOf(kind: ValueKind): readonly Operator[] {
  if (kind === 'bool') return BOOLEAN;
  // Ordering uuids would expose PostgreSQL's byte order of a value that carries no order.
  if (kind === 'uuid') return EQUALITY;
  if (kind === 'string') return TEXT;
  return ORDERED;
}

export interface ColumnOptions {
  nullable?: boolean;
  /** API name when it differs from the column (`location_country` → `location_country_id`). */
  name?: string;
  sortable?: boolean;
}

/** A column of the resource's own model; `W` is the model's WhereInput, so a typo fails to compile. */
export function columnOf<W>() {
  return (column: keyof W & string, kind: ValueKind, options: ColumnOptions = {}): ColumnField =>
    columnAt([column], kind, options);
}

export function columnAt(
  path: readonly [string, ...string[]],
  kind: ValueKind,
  options: ColumnOptions = {},
): ColumnField {
  const column = path[path.length - 1] as string;
  return {
    target: 'column',
    name: options.name ?? column,
    type: TYPE_OF_KIND[kind],
    kind,
    operators: operatorsOf(kind),
    nullable: options.nullable ?? false,
    path,
    sortable: options.sortable ?? true,
  };
}

/** A location id column: compared for equality only, never sorted; `null` finds records without one. */
export function locationColumn<W>(name: string, column: keyof W & string): ColumnField {
  const field = columnAt([column], 'int', { name, sortable: false, nullable: true });
  return { ...field, type: 'location', operators: EQUALITY };
}

/** Matches either column. Both are nullable foreign keys, which to-prisma's negations account for. */
export function locationAnyColumn<W>(name: string, columns: readonly (keyof W & string)[]): AnyColumnField {
  return { target: 'any_column', name, type: 'location', kind: 'int', operators: EQUALITY, nullable: false, columns };
}

/** `match` is written against the model's WhereInput (`W`), so its relation and column names are checked. */
export function idList<W extends WhereFragment>(
  name: string,
  match: (quantifier: 'some' | 'none', id: IdMatch) => W,
): IdListField {
  return { target: 'id_list', name, type: 'id_list', kind: 'int', operators: ID_LIST, nullable: false, match };
}

/** `{some: inner}` or `{none: inner}`, typed so Prisma's list relation filters accept it. */
export function quantify<T>(quantifier: 'some' | 'none', inner: T): { some?: T; none?: T } {
  return quantifier === 'some' ? { some: inner } : { none: inner };
}

/**
 * `Inner` is the related resource's WhereInput. The registry of `resource` only ever builds fragments of
 * that type, which is the one fact the cast below relies on.
 */
export function relation<W extends WhereFragment, Inner>(
  name: string,
  resource: Resource,
  recordKey: string,
  wrap: (inner: Inner) => W,
): RelationSpec {
  return { name, resource, recordKey, wrap: wrap as (inner: WhereFragment) => W };
}

/**
 * Related records an aggregate may group by: `path` is the Prisma relation steps to them, `fields`
 * their columns (another resource's registry, whose column fields are taken, or columns of their own).
 */
export function grouping(
  name: string,
  path: readonly [string, ...string[]],
  fields: ResourceRegistry | readonly ColumnField[],
): RelatedGrouping {
  const columns = 'fields' in fields ? [...fields.fields.values()] : fields;
  return {
    name,
    path,
    ...('resource' in fields ? { resource: fields.resource } : {}),
    fields: new Map(columns.filter((field): field is ColumnField => field.target === 'column').map((field) => [field.name, field])),
  };
}

export function registry(
  resource: Resource,
  refs: readonly string[],
  fields: readonly FieldSpec[],
  relations: readonly RelationSpec[] = [],
  groupings: readonly RelatedGrouping[] = [],
): ResourceRegistry {
  return Object.freeze({
    resource,
    refs,
    fields: new Map(fields.map((field) => [field.name, Object.freeze(field)])),
    relations: new Map(relations.map((spec) => [spec.name, Object.freeze(spec)])),
    groupings: new Map(groupings.map((spec) => [spec.name, Object.freeze(spec)])),
  });
}

/** A lookup through a relation (`external_id[eq]:crunchbase:airbnb`); values are text read by `readValue`. */
export function lookup(
  name: string,
  type: FieldType,
  readValue: NonNullable<LookupField['readValue']>,
  match: (values: readonly string[]) => WhereFragment,
): LookupField {
  return { target: 'lookup', name, type, kind: 'string', operators: ['eq', 'in_any'], nullable: false, readValue, match };
}
