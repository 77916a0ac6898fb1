/**
 * The tools' input pieces, read from the same field registry that checks filters and sorts and writes
 * the OpenAPI text: filterable fields, sortable fields (as an enum of `name` / `-name`), the record
 * fields `fields` picks from (the route's own), and the page size a model should ask for.
 */
import { z } from 'zod';
import { describeFilterFields, FILTER_LIMITS, RESOURCES, sortableFields, type Resource } from '../filter/index.ts';

/** Far below the API's 500 or 2000: a model reads every row it asks for. */
export const MAX_TOOL_LIMIT = 50;
export const DEFAULT_TOOL_LIMIT = 10;

export const resourceInput = z.enum(RESOURCES as [Resource, ...Resource[]]);

export function filterInput(resource: Resource): z.ZodOptional<z.ZodString> {
  const fields = describeFilterFields(resource).map((field) => `${field.name} (${field.type}: ${field.operators.join(' ')})`);
  return z
    .string()
    .max(FILTER_LIMITS.maxLength)
    .optional()
    .describe(
      // No example field: one every resource has would say little, and one of entities is wrong on news.
      'Filter expression: `field[op]:value` conditions ' +
        '(`field:value` means eq), combined with and(...) / or(...); lists are pipe-separated (`tags[in_any]:3|7`); quote ' +
        'values holding , ( ) | or : . Full grammar: resource venture-data://filter-grammar. ' +
        `Fields of ${resource} with their operators: ${fields.join('; ')}.`,
    );
}

export function sortInput(resource: Resource) {
  const names = [...sortableFields(resource).keys()];
  const terms = names.flatMap((name) => [name, `-${name}`]);
  return z
    .array(z.enum(terms as [string, ...string[]]))
    .max(names.length)
    .optional()
    .describe('Sort order, most significant first; `-` before a field sorts descending. Ties always end in id ascending.');
}

export function fieldsInput(recordFields: readonly string[]) {
  return z
    .array(z.enum(recordFields as [string, ...string[]]))
    .optional()
    .describe('Only these fields of each record (id is always kept); leave out for every field. Fewer fields, shorter answers.');
}

export const limitInput = z
  .number()
  .int()
  .min(1)
  .max(MAX_TOOL_LIMIT)
  .optional()
  .describe(`How many records, 1 to ${MAX_TOOL_LIMIT} (default ${DEFAULT_TOOL_LIMIT})`);

export const cursorInput = z
  .string()
  .min(1)
  .optional()
  .describe('`next_cursor` of the previous answer, to continue the same list (same filter and sort); leave out for the first page');

/** A list answer: the records, and where the list continues (null on its last page). */
export const listOutput = {
  data: z.array(z.looseObject({ id: z.number().int() })),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null when this is the last'),
};

/**
 * The cursor of a list the API pages by offset (aggregates, ecosystems): the next offset, written as
 * text so that every tool continues a list the same way.
 */
export const offsetCursorInput = z
  .string()
  .regex(/^\d{1,9}$/)
  .optional()
  .describe('`next_cursor` of the previous answer, to continue the same list; leave out for the first page');

/** `next_cursor` after rows `offset`..`offset + count` of `total`: null on the last page. */
export const nextOffsetCursor = (offset: number, count: number, total: number): string | null =>
  offset + count < total ? String(offset + count) : null;
