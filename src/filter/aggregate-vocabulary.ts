/**
 * What an aggregate of each resource can group by and measure, read from the field registry that
 * also drives filters, sorting, `GET /api/filters/{resource}` and the OpenAPI text: a column field is
 * groupable and countable; numeric ones (int, number, money) also sum, average and take percentiles
 * and numeric buckets; dates and date-times take min/max and date buckets. Nothing is listed twice.
 */
import { fieldRegistry, type ColumnField, type RelatedGrouping, type Resource } from './fields.ts';

export const METRIC_FUNCTIONS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'median', 'pNN'] as const;
export type MetricFunction = 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max' | 'median' | 'percentile';

export const DATE_UNITS = ['year', 'quarter', 'month', 'week', 'day'] as const;
export type DateUnit = (typeof DATE_UNITS)[number];

/** At most this many dimensions and metrics: the cost of one statement stays bounded. */
export const AGGREGATE_LIMITS = Object.freeze({ dimensions: 3, metrics: 10, maxLimit: 500 });

const NUMERIC_TYPES = new Set(['int', 'number', 'money']);
const DATE_TYPES = new Set(['date', 'datetime']);

export const isNumeric = (field: ColumnField): boolean => NUMERIC_TYPES.has(field.type);
export const isDate = (field: ColumnField): boolean => DATE_TYPES.has(field.type);

/** The metric functions (as written: `pNN` for the percentiles) that take this field. */
export function metricsOf(field: ColumnField): string[] {
  if (isNumeric(field)) return ['count_distinct', 'sum', 'avg', 'min', 'max', 'median', 'pNN'];
  if (isDate(field)) return ['count_distinct', 'min', 'max'];
  return ['count_distinct'];
}

/** How a dimension on this field may be written: as it is, and with the buckets its type takes. */
export function dimensionFormsOf(name: string, field: ColumnField): string[] {
  if (isDate(field)) return [name, ...DATE_UNITS.map((unit) => `${name}:${unit}`)];
  if (isNumeric(field)) return [name, `${name}:bucket(<width>)`];
  return [name];
}

/** The resource's own columns: what `metric=<fn>:<field>` and `group_by=<field>` name. */
export function ownColumns(resource: Resource): ReadonlyMap<string, ColumnField> {
  const columns = new Map<string, ColumnField>();
  for (const field of fieldRegistry(resource).fields.values()) if (field.target === 'column') columns.set(field.name, field);
  return columns;
}

export function relatedGroupings(resource: Resource): ReadonlyMap<string, RelatedGrouping> {
  return fieldRegistry(resource).groupings;
}

/** Every dimension name `group_by` accepts on the resource, buckets written as their pattern. */
export function dimensionNames(resource: Resource): string[] {
  const names = [...ownColumns(resource)].flatMap(([name, field]) => dimensionFormsOf(name, field));
  for (const [relation, grouping] of relatedGroupings(resource)) {
    for (const [name, field] of grouping.fields) names.push(...dimensionFormsOf(`${relation}.${name}`, field));
  }
  return names;
}

/** Every metric `metric=` accepts on the resource (`count`, `sum:amount_usd`, `pNN:amount_usd` ...). */
export function metricNames(resource: Resource): string[] {
  return ['count', ...[...ownColumns(resource)].flatMap(([name, field]) => metricsOf(field).map((fn) => `${fn}:${name}`))];
}

export interface AggregateUse {
  /** The dimensions a field gives (`date`, `date:year` ...), empty when it cannot be grouped by. */
  group_by: string[];
  /** The metric functions that take it (`sum`, `pNN` ...), empty when none does. */
  metrics: string[];
}

/** For `GET /api/filters/{resource}`: how aggregates use each field, by name (related records' fields as `tags.name`). */
export function aggregateUses(resource: Resource): Map<string, AggregateUse & { field: ColumnField }> {
  const uses = new Map<string, AggregateUse & { field: ColumnField }>();
  for (const [name, field] of ownColumns(resource)) uses.set(name, { field, group_by: dimensionFormsOf(name, field), metrics: metricsOf(field) });
  for (const [relation, grouping] of relatedGroupings(resource)) {
    for (const [name, field] of grouping.fields) {
      uses.set(`${relation}.${name}`, { field, group_by: dimensionFormsOf(`${relation}.${name}`, field), metrics: [] });
    }
  }
  return uses;
}
