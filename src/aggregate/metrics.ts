/**
 * `metric=[<label>,]<fn>[:<field>]`: `count`, `count_distinct:name`, `sum:amount_usd`, `p90:amount_usd`,
 * `total,sum:amount_usd`. Each is checked against the resource's columns (src/filter/aggregate-vocabulary.ts).
 */
import type { ColumnField, Resource } from '../filter/fields.ts';
import { aggregateError, suggest } from './errors.ts';
import { AGGREGATE_LIMITS, METRIC_FUNCTIONS, metricsOf, ownColumns, type MetricFunction } from '../filter/aggregate-vocabulary.ts';

export interface Metric {
  /** The key of its value in each row. */
  label: string;
  /** As written, without the label: `sum:amount_usd`. */
  metric: string;
  fn: MetricFunction;
  /** 0.01 to 0.99 for a percentile (the median is 0.5). */
  fraction?: number;
  field?: ColumnField;
}

export const LABEL = /^[a-z][a-z0-9_]{0,62}$/;
const PERCENTILE = /^p(\d\d)$/;
export const METRICS_PATH = 'metrics';

export function parseMetrics(resource: Resource, written: readonly string[]): Metric[] {
  if (written.length === 0) throw aggregateError(METRICS_PATH, 'at least one metric is required, e.g. count or sum:amount_usd');
  if (written.length > AGGREGATE_LIMITS.metrics) {
    throw aggregateError(METRICS_PATH, `at most ${AGGREGATE_LIMITS.metrics} metrics, found ${written.length}`);
  }
  const metrics = written.map((text) => parseMetric(resource, text));
  const seen = new Set<string>();
  for (const { label } of metrics) {
    if (seen.has(label)) throw aggregateError(METRICS_PATH, `the label '${label}' is used twice; give one of the metrics another label (<label>,<metric>)`);
    seen.add(label);
  }
  return metrics;
}

function parseMetric(resource: Resource, text: string): Metric {
  const comma = text.indexOf(',');
  const label = comma < 0 ? undefined : text.slice(0, comma).trim();
  const metric = (comma < 0 ? text : text.slice(comma + 1)).trim();
  if (label !== undefined && !LABEL.test(label)) {
    throw aggregateError(METRICS_PATH, `invalid label '${label}': lowercase letters, digits and _, starting with a letter, at most 63 characters`);
  }
  const [name = '', fieldName, ...rest] = metric.split(':');
  const parsed = { label: label ?? metric.replaceAll(':', '_'), metric };
  const percentile = PERCENTILE.exec(name);
  if (name === 'count') {
    if (fieldName !== undefined) throw aggregateError(METRICS_PATH, `count takes no field ('${metric}'); use count_distinct:${fieldName} to count distinct values`);
    return { ...parsed, fn: 'count' };
  }
  const fn = percentile ? 'percentile' : functionNamed(name);
  if (!fn) throw aggregateError(METRICS_PATH, `unknown metric '${name}' in '${metric}'; ${suggest(name, METRIC_FUNCTIONS)}`);
  if (percentile && percentile[1] === '00') throw aggregateError(METRICS_PATH, `percentiles run from p01 to p99, not '${name}'`);
  if (fieldName === undefined || rest.length) throw aggregateError(METRICS_PATH, `'${metric}' needs one field: ${name}:<field>`);
  const field = fieldFor(resource, name, percentile ? 'pNN' : name, fieldName);
  const fraction = percentile ? Number(percentile[1]) / 100 : fn === 'median' ? 0.5 : undefined;
  return { ...parsed, fn, field, ...(fraction === undefined ? {} : { fraction }) };
}

function functionNamed(name: string): MetricFunction | undefined {
  return (METRIC_FUNCTIONS as readonly string[]).includes(name) && name !== 'pNN' && name !== 'count' ? (name as MetricFunction) : undefined;
}

/** The field, which must exist and be of a type the function takes. */
function fieldFor(resource: Resource, written: string, fn: string, name: string): ColumnField {
  const columns = ownColumns(resource);
  const accepting = [...columns].filter(([, field]) => metricsOf(field).includes(fn)).map(([fieldName]) => fieldName);
  const field = columns.get(name);
  if (!field) throw aggregateError(METRICS_PATH, `unknown field '${name}' for ${written} on ${resource}; ${suggest(name, accepting)}`);
  if (!metricsOf(field).includes(fn)) {
    const takes = fn === 'min' || fn === 'max' ? 'a numeric, date or date-time field' : 'a numeric field';
    throw aggregateError(METRICS_PATH, `${written} takes ${takes}; '${name}' is ${field.type}. Fields it takes: ${accepting.join(', ')}`);
  }
  return field;
}
