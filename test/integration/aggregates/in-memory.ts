/**
 * The reference for the aggregates' differential test: groups and metrics computed in JavaScript from
 * the records themselves, as docs/aggregates.md defines them. A record counts once under each distinct
 * value of each dimension (a related record's values: several, or none = one null); metrics ignore
 * nulls; percentiles are continuous (linear interpolation between the closest ranks).
 */
export type Value = string | number | boolean | null;

export interface Dimension {
  key: string;
  /** Every value of the record for this dimension, duplicates allowed (they collapse). */
  values(record: Record<string, unknown>): Value[];
}

export interface Metric {
  label: string;
  compute(values: Value[], records: Record<string, unknown>[]): Value;
  /** The metric's input per record (none for count). */
  of?(record: Record<string, unknown>): Value;
}

export type Row = Record<string, Value>;

export function aggregate(records: Record<string, unknown>[], dimensions: Dimension[], metrics: Metric[]): Row[] {
  const groups = new Map<string, { keys: Value[]; records: Record<string, unknown>[] }>();
  for (const record of records) {
    let combinations: Value[][] = [[]];
    for (const dimension of dimensions) {
      const distinct = [...new Set(dimension.values(record))];
      const values = distinct.length ? distinct : [null];
      combinations = combinations.flatMap((prefix) => values.map((value) => [...prefix, value]));
    }
    for (const keys of combinations) {
      const id = JSON.stringify(keys);
      let group = groups.get(id);
      if (!group) groups.set(id, (group = { keys, records: [] }));
      group.records.push(record);
    }
  }
  // Without dimensions there is always one group, also over no records.
  if (dimensions.length === 0 && groups.size === 0) groups.set('[]', { keys: [], records: [] });
  return [...groups.values()].map(({ keys, records: members }) => {
    const row: Row = {};
    dimensions.forEach((dimension, index) => (row[dimension.key] = keys[index]!));
    for (const metric of metrics) {
      const values = metric.of ? members.map(metric.of).filter((value) => value !== null) : [];
      row[metric.label] = metric.compute(values, members);
    }
    return row;
  });
}

const numbers = (values: Value[]): number[] => values.map(Number);

export const count = (): Metric => ({ label: 'count', compute: (_values, records) => records.length });

export const countDistinct = (field: string): Metric => ({
  label: `count_distinct_${field}`,
  of: (record) => record[field] as Value,
  compute: (values) => new Set(values).size,
});

export const sum = (field: string): Metric => ({
  label: `sum_${field}`,
  of: (record) => record[field] as Value,
  compute: (values) => (values.length ? numbers(values).reduce((a, b) => a + b, 0) : null),
});

export const avg = (field: string): Metric => ({
  label: `avg_${field}`,
  of: (record) => record[field] as Value,
  compute: (values) => (values.length ? numbers(values).reduce((a, b) => a + b, 0) / values.length : null),
});

export const extreme = (which: 'min' | 'max', field: string): Metric => ({
  label: `${which}_${field}`,
  of: (record) => record[field] as Value,
  compute: (values) => {
    if (!values.length) return null;
    // Numbers compare as numbers; dates as their ISO text, which orders as it reads.
    const sorted = [...values].sort((a, b) => (typeof a === 'number' ? (a as number) - (b as number) : String(a) < String(b) ? -1 : 1));
    return which === 'min' ? sorted[0]! : sorted[sorted.length - 1]!;
  },
});

export const percentile = (label: string, fraction: number, field: string): Metric => ({
  label,
  of: (record) => record[field] as Value,
  compute: (values) => {
    if (!values.length) return null;
    const sorted = numbers(values).sort((a, b) => a - b);
    const position = fraction * (sorted.length - 1);
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
  },
});

/** A column of the record. */
export const own = (key: string, field = key): Dimension => ({ key, values: (record) => [record[field] as Value] });

/** Related records' values, kept on the record as an array. */
export const related = (key: string, field: string): Dimension => ({ key, values: (record) => record[field] as Value[] });

/** A date's bucket start: `YYYY-MM-DD` of the first day of its year, month or ISO week (Monday), in UTC. */
export const dateBucket = (key: string, field: string, unit: 'year' | 'month' | 'week'): Dimension => ({
  key,
  values: (record) => {
    const text = record[field] as string | null;
    if (text === null) return [null];
    const date = new Date(`${text.slice(0, 10)}T00:00:00Z`);
    if (unit === 'year') return [`${text.slice(0, 4)}-01-01`];
    if (unit === 'month') return [`${text.slice(0, 7)}-01`];
    date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
    return [date.toISOString().slice(0, 10)];
  },
});

export const numericBucket = (key: string, field: string, width: number): Dimension => ({
  key,
  values: (record) => {
    const value = record[field] as number | null;
    return [value === null ? null : Math.floor(value / width) * width];
  },
});
