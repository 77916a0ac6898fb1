/**
 * Patterns that state what an aggregate's `metric`, `group_by` and `sort`, and the change feed's
 * `types`, accept: built from the vocabulary the server checks them against (src/aggregate/
 * vocabulary.ts over the field registry, src/changes/resources.ts) and from the server's own regular
 * expressions, so a new field or change type is in the document the moment the server takes it.
 * What no pattern can state (a label used twice, `sort` naming this request's keys) stays in the text.
 *
 * The server trims each comma-separated item (JavaScript's `trim`, the whitespace `\s` matches) and
 * skips empty ones where it says so; the patterns allow the same.
 */
import { dimensionKey, WIDTH } from '../aggregate/dimensions.ts';
import { LABEL } from '../aggregate/metrics.ts';
import { AGGREGATE_LIMITS, dimensionNames, METRIC_FUNCTIONS, metricNames, metricsOf, ownColumns } from '../filter/aggregate-vocabulary.ts';
import { CHANGE_RESOURCE_NAMES } from '../changes/resources.ts';
import type { Resource } from '../filter/index.ts';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anchorless = (pattern: RegExp): string => pattern.source.replace(/^\^/, '').replace(/\$$/, '');
const oneOf = (alternatives: Iterable<string>): string => `(?:${[...new Set(alternatives)].join('|')})`;

/** `p01` to `p99` (the server reads `p\d\d` and refuses `p00`, src/aggregate/metrics.ts). */
const PERCENTILE = 'p(?:0[1-9]|[1-9][0-9])';
/** `bucket(<width>)` with a positive width: the server's WIDTH, and a non-zero digit before `)`. */
const BUCKET = anchorless(WIDTH).replace('bucket\\(', 'bucket\\((?=[0-9.]*[1-9])');
/** The same in a dimension's key, which writes the width's `.` as `_` too (`bucket(0.5)` → `bucket(0_5)`). */
const KEY_BUCKET = BUCKET.replaceAll('\\.', '_').replace('[0-9.]', '[0-9_]');
const LABEL_TEXT = anchorless(LABEL);

/** A written name as a pattern: literal, but `pNN` and `bucket(<width>)` as what they stand for. */
const namePattern = (name: string, bucket = BUCKET): string => escape(name).replace('pNN', PERCENTILE).replace(escape('bucket(<width>)'), bucket);

/** One `metric` value: `[<label>,]<metric>`, the metric one the resource's fields take. */
export function metricPattern(resource: Resource): string {
  const byFunction = METRIC_FUNCTIONS.filter((fn) => fn !== 'count').map((fn) => {
    const fields = [...ownColumns(resource)].filter(([, field]) => metricsOf(field).includes(fn)).map(([name]) => escape(name));
    return fields.length ? `${namePattern(fn)}:${oneOf(fields)}` : undefined;
  });
  return `^(?:\\s*${LABEL_TEXT}\\s*,)?\\s*${oneOf(['count', ...byFunction.filter((item) => item !== undefined)])}\\s*$`;
}

/** Up to `max` comma-separated items, each trimmed; empty items skipped. */
const commaList = (item: string, max: number | undefined): string =>
  `^[\\s,]*(?:${item}(?:\\s*,[\\s,]*${item})${max === undefined ? '*' : `{0,${max - 1}}`})?[\\s,]*$`;

/** `group_by`: up to AGGREGATE_LIMITS.dimensions of the resource's dimensions. */
export function groupByPattern(resource: Resource): string {
  return commaList(oneOf(dimensionNames(resource).map((name) => namePattern(name))), AGGREGATE_LIMITS.dimensions);
}

/**
 * `sort`: keys, `-` for descending. A key is a label (LABEL), a metric's default label or a
 * dimension's key (each written with `:` and `.` as `_`); which ones this request has is the text's.
 */
export function aggregateSortPattern(resource: Resource): string {
  const label = new RegExp(`^${LABEL_TEXT}$`);
  const keys = [...metricNames(resource), ...dimensionNames(resource)]
    .map((name) => dimensionKey(name))
    .filter((key) => !label.test(key))
    .map((key) => namePattern(key, KEY_BUCKET));
  return commaList(`-?${oneOf([LABEL_TEXT, ...keys])}`, undefined);
}

/** The feed's `types`: comma-separated change types, each trimmed; none may be empty. */
export function changeTypesPattern(): string {
  const type = `\\s*${oneOf(CHANGE_RESOURCE_NAMES)}\\s*`;
  return `^${type}(?:,${type})*$`;
}

/** Examples that fit the patterns, from the same vocabulary. */
export function aggregateExamples(resource: Resource): { metric: string[]; groupBy: string[]; sort: string[] } {
  // Ids are numbers too; an example reads better without them.
  const notAnId = (name: string) => !/(^|[_.:])u?u?id$/.test(name);
  const measured = metricNames(resource).find((name) => name.startsWith('sum:') && notAnId(name)) ?? 'count_distinct:id';
  const plain = dimensionNames(resource).filter((name) => !name.includes(':') && !name.includes('.') && notAnId(name));
  return {
    metric: ['count', measured, `total,${measured}`],
    groupBy: [plain[0]!, plain.slice(0, 2).join(',')],
    sort: ['-count', 'count'],
  };
}

export const changeTypesExamples = (): string[] => [CHANGE_RESOURCE_NAMES[0]!, CHANGE_RESOURCE_NAMES.slice(0, 2).join(',')];
