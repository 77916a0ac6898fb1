/** aggregate: counts, sums, averages and percentiles by dimensions, as GET /api/aggregate/{source} answers them. */
import { z } from 'zod';
import { AGGREGATE_LIMITS } from '../../filter/aggregate-vocabulary.ts';
import { FILTER_LIMITS } from '../../filter/index.ts';
import { DEFAULT_TOOL_LIMIT, limitInput, nextOffsetCursor, offsetCursorInput, resourceInput } from '../inputs.ts';
import { toolError, toolResult } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

interface AggregateAnswer {
  data: Record<string, unknown>[];
  page: { offset: number; total: number };
  query_info: Record<string, unknown>;
}

export const aggregate: Tool = defineTool({
  name: 'aggregate',
  title: 'Aggregate records',
  description:
    'Answers "how many / how much by ..." questions in one call: metrics over the records of a source that match a filter, ' +
    'grouped by up to 3 dimensions. Examples: metrics ["count"], group_by ["hq_country"] on entities; ' +
    'metrics ["sum:amount_usd", "median:amount_usd"], group_by ["date:year", "round_type"] on transactions. ' +
    'describe_filters lists, per field, the group_by forms and metrics it takes. Rows come sorted by the first metric, descending.',
  input: {
    source: resourceInput.describe('The records to aggregate'),
    metrics: z
      .array(z.string().min(1))
      .min(1)
      .max(AGGREGATE_LIMITS.metrics)
      .describe(
        'count, count_distinct:<field>, sum:<field>, avg:<field>, min:<field>, max:<field>, median:<field>, p<NN>:<field> (p01..p99); ' +
          'optionally labelled `<label>,<metric>`. A metric\'s default label is the metric with `:` written `_` (sum_amount_usd).',
      ),
    group_by: z
      .array(z.string().min(1))
      .max(AGGREGATE_LIMITS.dimensions)
      .optional()
      .describe('Dimensions: a field (hq_country), a date field by year|quarter|month|week|day (date:year), a numeric field in buckets (amount_usd:bucket(1000000)), a related field (entity.hq_country, tags.name)'),
    filter: z.string().max(FILTER_LIMITS.maxLength).optional().describe('Which records count: the same filter expression as the search tools take'),
    having: z.string().max(FILTER_LIMITS.maxLength).optional().describe('A filter over the metric labels, e.g. count[gte]:10'),
    sort: z.array(z.string().min(1)).optional().describe('Metric labels and dimension keys, `-` for descending'),
    limit: limitInput,
    cursor: offsetCursorInput,
  },
  output: {
    data: z.array(z.record(z.string(), z.unknown())).describe('One row per group: each dimension under its key, each metric under its label'),
    total: z.number().int().describe('How many groups there are in all'),
    next_cursor: z.string().nullable(),
    query_info: z.looseObject({}),
  },
  run: async ({ source, metrics, group_by, filter, having, sort, limit, cursor }, get) => {
    const answer = await get(`/api/aggregate/${source}`, {
      metric: metrics,
      group_by: group_by?.join(','),
      filter,
      having,
      sort: sort?.join(','),
      limit: limit ?? DEFAULT_TOOL_LIMIT,
      offset: cursor,
    });
    if (answer.status !== 200) return toolError(answer);
    const { data, page, query_info } = answer.body as AggregateAnswer;
    return toolResult({ data, total: page.total, next_cursor: nextOffsetCursor(page.offset, data.length, page.total), query_info });
  },
});
