/**
 * The parameters of `GET /api/changes` and of the `changes` field, read once for both transports:
 * `since` (a cursor, a change id, or `now`), `types` (the caller's readable types by default; one it
 * may not read is 403) and `limit`. Detail paths are the parameter names; REST prefixes them with `query.`.
 */
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import { AppError, validationError, type ErrorDetail } from '../errors.ts';
import { closeMatches } from '../filter/index.ts';
import { decodePlace } from './cursor.ts';
import type { ChangeRequest } from './feed.ts';
import { CHANGE_RESOURCE_NAMES, changePermission, isChangeResource, type ChangeResource } from './resources.ts';

export const CHANGES_LIMIT = { default: 100, max: 1000 } as const;

/** The query of `GET /api/changes` (the OpenAPI document's description of it too). */
export const changeParameters = z.object({
  since: z
    .string()
    .min(1, 'must not be empty')
    .optional()
    .describe('A `next_cursor` or a change `id` to continue after, or `now` for an empty page with the current cursor; without it, the oldest change kept'),
  types: z
    .string()
    .optional()
    .describe(`Comma-separated: ${CHANGE_RESOURCE_NAMES.join(', ')}; default: every type the caller may read`),
  limit: z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(CHANGES_LIMIT.max, `must be at most ${CHANGES_LIMIT.max}`)
    .default(CHANGES_LIMIT.default)
    .describe(`Changes per page, 1 to ${CHANGES_LIMIT.max} (default ${CHANGES_LIMIT.default})`),
});

export interface ChangeArguments {
  since?: string | null | undefined;
  types?: string | null | undefined;
  limit?: number | null | undefined;
}

export function readChangeRequest(principal: Principal, input: ChangeArguments): ChangeRequest {
  const parsed = changeParameters.safeParse(Object.fromEntries(Object.entries(input).filter(([, value]) => value != null)));
  if (!parsed.success) {
    throw validationError(parsed.error.issues.map((issue): ErrorDetail => ({ path: issue.path.join('.'), message: issue.message })));
  }
  const { since, types, limit } = parsed.data;
  return {
    since: since === undefined ? undefined : since === 'now' ? 'now' : decodePlace(since, 'since'),
    types: readTypes(principal, types),
    limit,
  };
}

function readTypes(principal: Principal, written: string | undefined): ChangeResource[] {
  const readable = CHANGE_RESOURCE_NAMES.filter((type) => principal.permissions.has(changePermission(type)));
  if (written === undefined) {
    if (readable.length === 0) {
      throw new AppError('FORBIDDEN', `Reading changes needs the read permission of at least one type: ${CHANGE_RESOURCE_NAMES.map(changePermission).join(', ')}`);
    }
    return readable;
  }
  const names = [...new Set(written.split(',').map((name) => name.trim()))];
  const unknown = names.filter((name) => !isChangeResource(name));
  if (unknown.length || names.length === 0) {
    const matches = closeMatches(unknown, CHANGE_RESOURCE_NAMES);
    const help = matches.length ? `close matches: ${matches.join(', ')}` : `known: ${CHANGE_RESOURCE_NAMES.join(', ')}`;
    throw validationError([{ path: 'types', message: `unknown type(s): ${unknown.join(', ') || '(empty)'}; ${help}` }]);
  }
  const types = names as ChangeResource[];
  const missing = [...new Set(types.filter((type) => !readable.includes(type)).map(changePermission))];
  if (missing.length) {
    throw new AppError('FORBIDDEN', `Reading these changes needs the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}`);
  }
  return types;
}
