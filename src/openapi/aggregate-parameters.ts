/**
 * What an aggregate route's parameters accept on its source, from the same vocabulary that checks them
 * (src/filter/aggregate-vocabulary.ts, read from the field registry): the metrics and dimensions by name and
 * as patterns (vocabulary-patterns.ts), the filters' length limit, the page's bounds.
 */
import { AGGREGATE_LIMITS, dimensionNames, metricNames } from '../filter/aggregate-vocabulary.ts';
import { FILTER_LIMITS, type Resource } from '../filter/index.ts';
import { DEFAULT_LIMIT } from '../schema/list.ts';
import { OFFSET_SCHEMA } from './schema-helpers.ts';
import type { JsonSchema } from './types.ts';
import { aggregateExamples, aggregateSortPattern, groupByPattern, metricPattern } from './vocabulary-patterns.ts';

export interface DescribedParameter {
  schema: JsonSchema;
  description: string | undefined;
}

const list = (names: string[]): string => names.map((name) => `\`${name}\``).join(', ');

export function aggregateParameter(name: string, schema: JsonSchema, base: string | undefined, source: Resource): DescribedParameter {
  const examples = aggregateExamples(source);
  switch (name) {
    case 'metric':
      return {
        schema: { ...schema, items: { type: 'string', pattern: metricPattern(source), examples: examples.metric }, minItems: 1, maxItems: AGGREGATE_LIMITS.metrics, uniqueItems: true },
        description:
          `Repeat for several (1 to ${AGGREGATE_LIMITS.metrics}, each label once); \`<label>,<metric>\` names its key. ` +
          `On ${source}: ${list(metricNames(source))} (\`pNN\` is \`p01\` to \`p99\`).`,
      };
    case 'group_by':
      return {
        schema: { ...schema, pattern: groupByPattern(source), examples: examples.groupBy },
        description: `Up to ${AGGREGATE_LIMITS.dimensions} comma-separated dimensions, each once. On ${source}: ${list(dimensionNames(source))}.`,
      };
    case 'sort':
      return {
        schema: { ...schema, pattern: aggregateSortPattern(source), examples: examples.sort },
        description: `${base ?? 'Sort order'}. Each key must be one of this request's dimension keys or metric labels.`,
      };
    case 'limit':
      return {
        schema: { ...schema, minimum: 1, maximum: AGGREGATE_LIMITS.maxLimit, default: DEFAULT_LIMIT },
        description: `Groups per page; 1 to ${AGGREGATE_LIMITS.maxLimit}, never clamped`,
      };
    case 'offset':
      return { schema: { ...schema, ...OFFSET_SCHEMA }, description: base };
    case 'filter':
      return { schema: { ...schema, maxLength: FILTER_LIMITS.maxLength }, description: `${base ?? 'Filter'}; the fields \`GET /api/filters/${source}\` lists` };
    case 'having':
      return { schema: { ...schema, maxLength: FILTER_LIMITS.maxLength }, description: base };
    default:
      return { schema, description: base };
  }
}
