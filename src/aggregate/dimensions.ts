/**
 * `group_by=a,b,c`: a column (`round_type`), a date bucket (`date:year`), a numeric bucket
 * (`amount_usd:bucket(1000000)`) or a related record's column (`entity.hq_country`, `tags.name`).
 */
import type { ColumnField, Resource } from '../filter/fields.ts';
import { aggregateError, suggest } from './errors.ts';
import {
  AGGREGATE_LIMITS,
  DATE_UNITS,
  dimensionNames,
  isDate,
  isNumeric,
  ownColumns,
  relatedGroupings,
  type DateUnit,
} from '../filter/aggregate-vocabulary.ts';

export type Bucket = { unit: DateUnit } | { width: string };

export interface Dimension {
  /** The key of its value in each row: as written, `:` and `.` as `_` (`date:year` → `date_year`). */
  key: string;
  written: string;
  field: ColumnField;
  /** Prisma relation steps from the resource's records to the column (the related records', then the field's own). */
  steps: readonly string[];
  /** The related resource whose read permission it needs, if any. */
  needs?: Resource;
  bucket?: Bucket;
}

export const GROUP_BY_PATH = 'groupBy';

/** A dimension's key in the rows: as written, `:` and `.` as `_`. */
export const dimensionKey = (written: string): string => written.replace(/[:.]/g, '_');
export const WIDTH = /^bucket\((\d{1,15}(?:\.\d{1,6})?)\)$/;

/** Comma-separated dimensions; a list (GraphQL) may also hold comma-separated items. */
export function parseDimensions(resource: Resource, written: readonly string[]): Dimension[] {
  const names = written.flatMap((item) => item.split(',')).map((name) => name.trim()).filter(Boolean);
  if (names.length > AGGREGATE_LIMITS.dimensions) {
    throw aggregateError(GROUP_BY_PATH, `at most ${AGGREGATE_LIMITS.dimensions} dimensions, found ${names.length}`);
  }
  const dimensions = names.map((name) => parseDimension(resource, name));
  const keys = new Set<string>();
  for (const { key, written: name } of dimensions) {
    if (keys.has(key)) throw aggregateError(GROUP_BY_PATH, `'${name}' is grouped by twice`);
    keys.add(key);
  }
  return dimensions;
}

function parseDimension(resource: Resource, written: string): Dimension {
  const colon = written.indexOf(':');
  const path = colon < 0 ? written : written.slice(0, colon);
  const bucketText = colon < 0 ? undefined : written.slice(colon + 1);
  const dot = path.indexOf('.');
  const unknown = () => aggregateError(GROUP_BY_PATH, `unknown dimension '${written}' on ${resource}; ${suggest(path, dimensionNames(resource).filter((name) => !name.includes(':')))}`);
  let located: Pick<Dimension, 'field' | 'steps' | 'needs'>;
  if (dot < 0) {
    const field = ownColumns(resource).get(path);
    if (!field) throw unknown();
    located = { field, steps: field.path.slice(0, -1) };
  } else {
    const grouping = relatedGroupings(resource).get(path.slice(0, dot));
    const field = grouping?.fields.get(path.slice(dot + 1));
    if (!grouping || !field) throw unknown();
    located = { field, steps: [...grouping.path, ...field.path.slice(0, -1)], ...(grouping.resource ? { needs: grouping.resource } : {}) };
  }
  const bucket = bucketText === undefined ? undefined : parseBucket(written, located.field, bucketText);
  return { key: dimensionKey(written), written, ...located, ...(bucket ? { bucket } : {}) };
}

function parseBucket(written: string, field: ColumnField, text: string): Bucket {
  if (isDate(field)) {
    if ((DATE_UNITS as readonly string[]).includes(text)) return { unit: text as DateUnit };
    throw aggregateError(GROUP_BY_PATH, `unknown bucket '${text}' in '${written}'; a date takes ${DATE_UNITS.join(', ')} (${suggest(text, DATE_UNITS)})`);
  }
  if (isNumeric(field)) {
    const width = WIDTH.exec(text)?.[1];
    if (width !== undefined && Number(width) > 0) return { width };
    throw aggregateError(GROUP_BY_PATH, `unknown bucket '${text}' in '${written}'; a number takes bucket(<width>) with a positive width, e.g. bucket(1000000)`);
  }
  throw aggregateError(GROUP_BY_PATH, `'${written}': a ${field.type} field takes no bucket; buckets are for dates (year, quarter, month, week, day) and numbers (bucket(<width>))`);
}
