/**
 * What an aggregate route's parameters accept on its source, from the same vocabulary that checks them
 * (src/filter/aggregate-vocabulary.ts, read from the field registry): the metrics and dimensions by name.
 */
import { AGGREGATE_LIMITS, dimensionNames, metricNames } from '../filter/aggregate-vocabulary.ts';
import type { Resource } from '../filter/index.ts';
import { DEFAULT_LIMIT } from '../schema/list.ts';
import type { JsonSchema } from './types.ts';

export interface DescribedParameter {
  schema: JsonSchema;
  description: string | undefined;
}

const list = (names: string[]): string => names.map((name) => `\`${name}\``).join(', ');

export function aggregateParameter(name: string, schema: JsonSchema, base: string | undefined, source: Resource): DescribedParameter {
  switch (name) {
    case 'metric':
      return {
        schema: { ...schema, minItems: 1, maxItems: AGGREGATE_LIMITS.metrics },
        description:
          `Repeat for several (1 to ${AGGREGATE_LIMITS.metrics}); \`<label>,<metric>\` names its key. ` +
          `On ${source}: ${list(metricNames(source))} (\`pNN\` is \`p01\` to \`p99\`).`,
      };
    case 'group_by':
      return {
        schema,
        description: `Up to ${AGGREGATE_LIMITS.dimensions} comma-separated dimensions. On ${source}: ${list(dimensionNames(source))}.`,
      };
    case 'limit':
      return {
        schema: { ...schema, minimum: 1, maximum: AGGREGATE_LIMITS.maxLimit, default: DEFAULT_LIMIT },
        description: `Groups per page; 1 to ${AGGREGATE_LIMITS.maxLimit}, never clamped`,
      };
    case 'offset':
      return { schema: { ...schema, minimum: 0, default: 0 }, description: base };
    case 'filter':
      return { schema, description: `${base ?? 'Filter'}; the fields \`GET /api/filters/${source}\` lists` };
    default:
      return { schema, description: base };
  }
}
