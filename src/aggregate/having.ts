/**
 * `having`: the filter grammar over the metric labels (`and(count[gte]:10,median_amount_usd[gt]:1e6)`),
 * parsed, checked and translated by the filter pipeline itself, against a registry whose fields are
 * the labels. Its where input is written as SQL by the compiler's where writer over the grouped rows.
 */
import { AppError } from '../errors.ts';
import {
  parseOptionalFilter,
  resolveFilterOver,
  toPrismaWhere,
  type Resource,
} from '../filter/index.ts';
import { columnAt, registry } from '../filter/fields/build.ts';
import type { ValueKind } from '../filter/fields.ts';
import type { Metric } from './metrics.ts';
import { isDate } from '../filter/aggregate-vocabulary.ts';

export const HAVING_PATH = 'having';

/** The having where over the labels, or undefined when there is none. */
export function parseHaving(resource: Resource, metrics: readonly Metric[], text: string | null | undefined): object | undefined {
  const ast = parseSyntax(text);
  if (!ast) return undefined;
  const labels = registry(resource, [], metrics.map((metric) => columnAt([metric.label], kindOf(metric), { nullable: nullable(metric) })));
  const names = metrics.map((metric) => metric.label).join(', ');
  const resolved = resolveFilterOver(ast, labels, {
    parameter: HAVING_PATH,
    noun: 'having label',
    scope: `(having compares the metrics' labels: ${names})`,
    listing: `the labels are ${names}`,
  });
  return toPrismaWhere(resolved);
}

/** The parser names its argument `filter`; here the expression came as `having`. */
function parseSyntax(text: string | null | undefined) {
  try {
    return parseOptionalFilter(text);
  } catch (error) {
    if (error instanceof AppError) {
      throw new AppError(error.code, error.message, { details: error.details?.map((detail) => ({ ...detail, path: HAVING_PATH })) });
    }
    throw error;
  }
}

/** Counts are whole numbers; min/max of a date compare as dates; any other metric as an exact number. */
function kindOf(metric: Metric): ValueKind {
  if (metric.fn === 'count' || metric.fn === 'count_distinct') return 'int';
  if ((metric.fn === 'min' || metric.fn === 'max') && metric.field && isDate(metric.field)) return metric.field.kind;
  return 'decimal';
}

/** A count is never null; any other metric of an empty or all-null set is. */
const nullable = (metric: Metric): boolean => metric.fn !== 'count' && metric.fn !== 'count_distinct';
