/**
 * Management inputs are checked with zod schemas, one per request shape, and every problem becomes a
 * VALIDATION_ERROR detail whose path says where the value came from: `body.slug` over REST, `slug`
 * over GraphQL. Unknown fields are refused (a misspelt field must not be silently dropped).
 */
import { z } from 'zod';
import { NUL_MESSAGE, validationError, type ErrorDetail } from '../errors.ts';
import { findJsonProblem, hasLoneSurrogate, LONE_SURROGATE_MESSAGE, type JsonLimits } from '../values/json-shape.ts';

const at = (prefix: string, path: readonly PropertyKey[]): string =>
  [prefix, ...path.map(String)].filter(Boolean).join('.') || 'input';

/** A body of many bad fields answers with the first ones and how many more, not with a detail each. */
const MAX_DETAILS = 50;

function detailsOf(error: z.ZodError, prefix: string): ErrorDetail[] {
  const details = error.issues.flatMap((issue): ErrorDetail[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: at(prefix, [...issue.path, key]), message: 'unknown field' }))
      : [{ path: at(prefix, issue.path), message: issue.message }],
  );
  if (details.length <= MAX_DETAILS) return details;
  return [
    ...details.slice(0, MAX_DETAILS),
    { path: prefix || 'input', message: `and ${details.length - MAX_DETAILS} more problems like these` },
  ];
}

/** The value as the schema reads it, or VALIDATION_ERROR listing every problem; `prefix` is `body` for REST. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, prefix: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(detailsOf(result.error, prefix));
  return result.data;
}

/**
 * A text of `min` to `max` characters, trimmed of nothing: what the client sent is what is stored. A
 * NUL, or a lone surrogate (which UTF-8 would turn into U+FFFD), could not be stored as sent: refused.
 */
export const text = (min: number, max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(min, `must be ${min} to ${max} characters`)
    .max(max, `must be ${min} to ${max} characters`)
    .refine((value) => !value.includes('\u0000'), NUL_MESSAGE)
    .refine((value) => !hasLoneSurrogate(value), LONE_SURROGATE_MESSAGE);

/** What a browser would follow without leaving http(s): no whitespace or control character in it. */
function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value) || /[\s\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An absolute http or https URL of at most `max` characters, or `""` for none. */
export const httpUrl = (max: number) =>
  text(0, max)
    .refine((value) => value === '' || isHttpUrl(value), 'must be an absolute http or https URL, or empty')
    // What the refinement checks, as far as a pattern can say it (src/openapi/body-schema.ts).
    .meta({ anyOf: [{ const: '' }, { format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$' }] });

/** An absolute http or https URL of 1 to `max` characters (no empty value). */
export const requiredHttpUrl = (max: number) =>
  text(1, max)
    .refine((value) => isHttpUrl(value), 'must be an absolute http or https URL')
    .meta({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$' });

/**
 * A free-form JSON object within `limits` (src/values/json-shape.ts, with `exact`), kept as the very
 * value given: never copied key by key, so nothing is dropped or changed on its way to the database.
 * What could not be stored exactly (a `__proto__` key, a non-finite number, an undefined value from a
 * GraphQL literal's missing variable) is refused at its path.
 */
export const jsonObject = (limits: JsonLimits) =>
  z.custom<Record<string, unknown>>().meta({ type: 'object', additionalProperties: {} }).superRefine((value, context) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      context.addIssue({ code: 'custom', message: 'must be a JSON object' });
      return;
    }
    const problem = findJsonProblem(value, { ...limits, exact: true });
    if (problem) context.addIssue({ code: 'custom', message: problem.message, path: problem.at });
  });
