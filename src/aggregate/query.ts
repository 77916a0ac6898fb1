/**
 * One aggregate request, read and checked once, the same for REST and GraphQL: the source, its metrics,
 * dimensions, `having`, order and page. The filter is read by the list code (src/aggregate/run.ts), so
 * it means exactly what it means on the source's list.
 */
import type { Resource } from '../filter/index.ts';
import { parseWindow, type Window } from '../schema/list.ts';
import { parseDimensions, type Dimension } from './dimensions.ts';
import { aggregateError, suggest } from './errors.ts';
import { parseHaving } from './having.ts';
import { parseMetrics, type Metric } from './metrics.ts';
import { AGGREGATE_LIMITS } from '../filter/aggregate-vocabulary.ts';

export interface AggregateArgs {
  metrics: readonly string[];
  groupBy?: readonly string[] | null | undefined;
  filter?: string | null | undefined;
  having?: string | null | undefined;
  sort?: string | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
}

export interface OrderKey {
  /** A dimension key or a metric label. */
  key: string;
  descending: boolean;
}

export interface AggregateQuery {
  source: Resource;
  metrics: Metric[];
  dimensions: Dimension[];
  /** A where input over the metric labels. */
  having: object | undefined;
  /** The order asked for, then every dimension not in it, ascending: pages never overlap. */
  order: OrderKey[];
  window: Window;
}

export function readAggregateQuery(source: Resource, args: AggregateArgs): AggregateQuery {
  const window = parseWindow({ limit: args.limit, offset: args.offset }, AGGREGATE_LIMITS.maxLimit);
  const metrics = parseMetrics(source, args.metrics);
  const dimensions = parseDimensions(source, args.groupBy ?? []);
  const clash = dimensions.find((dimension) => metrics.some((metric) => metric.label === dimension.key));
  if (clash) throw aggregateError('metrics', `the label '${clash.key}' is also a dimension's key; give the metric another label (<label>,<metric>)`);
  const having = parseHaving(source, metrics, args.having);
  return { source, metrics, dimensions, having, order: parseOrder(args.sort, metrics, dimensions), window };
}

function parseOrder(sort: string | null | undefined, metrics: Metric[], dimensions: Dimension[]): OrderKey[] {
  const names = [...dimensions.map((dimension) => dimension.key), ...metrics.map((metric) => metric.label)];
  const written = (sort ?? '').split(',').map((part) => part.trim()).filter(Boolean);
  const asked = written.length ? written.map((part) => orderKey(part, names)) : [{ key: metrics[0]!.label, descending: true }];
  const order: OrderKey[] = [];
  for (const key of [...asked, ...dimensions.map((dimension) => ({ key: dimension.key, descending: false }))]) {
    if (!order.some((existing) => existing.key === key.key)) order.push(key);
  }
  return order;
}

function orderKey(part: string, names: string[]): OrderKey {
  const descending = part.startsWith('-');
  const key = descending ? part.slice(1) : part;
  if (!names.includes(key)) throw aggregateError('sort', `cannot sort by '${key}': sort takes the dimension keys and metric labels; ${suggest(key, names)}`);
  return { key, descending };
}
