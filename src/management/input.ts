/**
 * Management inputs are checked with zod schemas, one per request shape, and every problem becomes a
 * VALIDATION_ERROR detail whose path says where the value came from: `body.slug` over REST, `slug`
 * over GraphQL. Unknown fields are refused (a misspelt field must not be silently dropped).
 */
import { z } from 'zod';
import { NUL_MESSAGE, validationError, type ErrorDetail } from '../errors.ts';

const at = (prefix: string, path: readonly PropertyKey[]): string =>
  [prefix, ...path.map(String)].filter(Boolean).join('.') || 'input';

function detailsOf(error: z.ZodError, prefix: string): ErrorDetail[] {
  return error.issues.flatMap((issue): ErrorDetail[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: at(prefix, [...issue.path, key]), message: 'unknown field' }))
      : [{ path: at(prefix, issue.path), message: issue.message }],
  );
}

/** The value as the schema reads it, or VALIDATION_ERROR listing every problem; `prefix` is `body` for REST. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, prefix: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(detailsOf(result.error, prefix));
  return result.data;
}

/** A text of `min` to `max` characters, trimmed of nothing: what the client sent is what is stored. */
export const text = (min: number, max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(min, `must be ${min} to ${max} characters`)
    .max(max, `must be ${min} to ${max} characters`)
    .refine((value) => !value.includes('\u0000'), NUL_MESSAGE);
