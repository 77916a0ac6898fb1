/**
 * describe_filters, validate_filter and lookup_values: what a model needs to write a filter that
 * works the first time, answered by the same routes as GET /api/filters/{resource} and the lists.
 */
import { z } from 'zod';
import { describeFilterFields, FILTER_ERROR_CODES, FILTER_LIMITS, RESOURCES, type FilterFieldDescription } from '../../filter/index.ts';
import { LOCATION_LOOKUP_MAX_LIMIT } from '../../schema/filters.ts';
import { resourceInput } from '../inputs.ts';
import { toolError, toolResult, type ErrorEnvelope } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

/** One example condition per field type, written with the field's own name and operators. */
const EXAMPLE_BY_TYPE: Readonly<Record<string, (name: string) => string>> = {
  int: (name) => `${name}[gte]:2015`,
  number: (name) => `${name}[gt]:0`,
  money: (name) => `${name}[gte]:1000000`,
  bool: (name) => `${name}:true`,
  // Only text-searchable strings: another string field may hold a uuid, which other text does not fit.
  string: (name) => `${name}[contains]:bio`,
  date: (name) => `${name}[gte]:2012-01-01`,
  datetime: (name) => `${name}[lt]:2014-01-01T00:00:00Z`,
  id_list: (name) => `${name}[in_any]:1|2`,
  location: (name) => `${name}:1`,
};

/** The first field of each type as an example, then two of them combined. */
export function filterExamples(fields: readonly Pick<FilterFieldDescription, 'name' | 'type' | 'operators'>[]): string[] {
  const seen = new Set<string>();
  const examples: string[] = [];
  for (const field of fields) {
    const example = EXAMPLE_BY_TYPE[field.type];
    if (seen.has(field.type) || !example || field.operators.length === 0 || field.name.includes('__')) continue;
    if (field.type === 'string' && !field.operators.includes('contains')) continue;
    seen.add(field.type);
    examples.push(example(field.name));
  }
  if (examples.length >= 2) examples.push(`and(${examples[0]}, or(${examples[1]}, ${examples.at(-1)}))`);
  return examples;
}

export const describeFilters: Tool = defineTool({
  name: 'describe_filters',
  title: 'Describe the filters of a resource',
  description:
    'Lists every field a filter, a sort or an aggregate of the resource can name: its type, its operators, whether it sorts, ' +
    'whether it can be null, and what aggregates group by and measure on it; with example filter expressions. Call it before writing a filter.',
  input: { resource: resourceInput.describe('The resource whose filter fields to describe') },
  output: {
    resource: z.string(),
    fields: z.array(z.looseObject({ name: z.string(), type: z.string(), operators: z.array(z.string()), sortable: z.boolean() })),
    examples: z.array(z.string()).describe('Valid filter expressions for this resource'),
  },
  run: async ({ resource }, get) => {
    const answer = await get(`/api/filters/${resource}`);
    if (answer.status !== 200) return toolError(answer);
    const fields = (answer.body as { data: FilterFieldDescription[] }).data;
    return toolResult({ resource, fields, examples: filterExamples(fields) });
  },
});

const POSITION = /at position (\d+)/;
const CLOSE_MATCHES = /close matches: ([^;]+)$/;

export const validateFilter: Tool = defineTool({
  name: 'validate_filter',
  title: 'Check a filter expression',
  description:
    'Parses and checks a filter expression against a resource\'s fields, as the search tools would, without listing records. ' +
    'A wrong one gives the error code, the 0-based character position of the problem and close matches for a mistyped field; ' +
    'a right one says whether any record matches.',
  input: { resource: resourceInput.describe('The resource the filter is for'), filter: z.string().min(1).max(FILTER_LIMITS.maxLength) },
  output: {
    valid: z.boolean(),
    matches_any: z.boolean().optional().describe('Whether at least one record matches (when valid)'),
    error: z
      .object({
        code: z.enum(FILTER_ERROR_CODES),
        message: z.string(),
        position: z.number().int().nullable().describe('0-based character position of the problem in the filter'),
        close_matches: z.array(z.string()),
      })
      .optional(),
  },
  run: async ({ resource, filter }, get) => {
    // The list itself checks it, so no rule can differ; one id is all the answer costs.
    const answer = await get(`/api/${resource}`, { filter, limit: 1, fields: 'id' });
    if (answer.status === 200) return toolResult({ valid: true, matches_any: (answer.body as { data: unknown[] }).data.length > 0 });
    const { error } = answer.body as ErrorEnvelope;
    if (!(FILTER_ERROR_CODES as readonly string[]).includes(error.code)) return toolError(answer);
    const position = POSITION.exec(error.message)?.[1];
    const matches = CLOSE_MATCHES.exec(error.message)?.[1];
    return toolResult({
      valid: false,
      error: {
        code: error.code,
        message: error.message,
        position: position === undefined ? null : Number(position),
        close_matches: matches ? matches.split(',').map((name) => name.trim()) : [],
      },
    });
  },
});

/** Where each taxonomy a filter field takes is looked up (`location` → its values route), from the registry. */
let found: ReadonlyMap<string, string> | undefined;
const lookups = (): ReadonlyMap<string, string> =>
  (found ??= new Map(
    RESOURCES.flatMap((resource) => describeFilterFields(resource)).flatMap((field) => (field.values_url ? [[field.type, field.values_url]] : [])),
  ));

export const lookupValues: Tool = defineTool({
  name: 'lookup_values',
  title: 'Look up the ids a filter takes',
  description:
    'Turns a name into the id a filter wants: `kind: "location"` finds countries and cities whose name starts with `q` ' +
    '(e.g. "Berl" → Berlin), the most used first, for filters such as `location:<id>`.',
  input: () => ({
    kind: z.enum([...lookups().keys()] as [string, ...string[]]).describe('Which taxonomy'),
    q: z.string().max(200).optional().describe('The start of the name, case-insensitive; leave out for the most used'),
    limit: z.number().int().min(1).max(LOCATION_LOOKUP_MAX_LIMIT).optional().describe('How many values (default 25)'),
  }),
  output: { values: z.array(z.looseObject({ id: z.number().int(), name: z.string() })) },
  run: async ({ kind, q, limit }, get) => {
    const answer = await get(lookups().get(kind)!, { q, limit });
    if (answer.status !== 200) return toolError(answer);
    return toolResult({ values: (answer.body as { data: { id: number; name: string }[] }).data });
  },
});
