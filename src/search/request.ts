/**
 * The parameters of `GET /api/search` and of the `search` field, read once for both transports: `q`
 * (1..200 characters), `types` (the kinds the caller may read by default; one it may not read is
 * 403) and `limit` (1..50, default 10). Detail paths are the parameter names; REST prefixes them with
 * `query.`. The permission check comes first, as everywhere (403 before 400).
 */
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import { AppError, validationError, type ErrorDetail } from '../errors.ts';
import { closeMatches } from '../filter/index.ts';
import { SEARCH_KINDS, type SearchKind, type SearchQuery } from './statement.ts';

export const SEARCH_LIMIT = { default: 10, max: 50 } as const;
export const SEARCH_Q_MAX = 200;

/** The permission that reads each kind's records. */
export const SEARCH_PERMISSION: Readonly<Record<SearchKind, string>> = {
  entity: 'read:entities',
  investor: 'read:investors',
  founder: 'read:founders',
};

const LIMIT_RANGE = `must be an integer from 1 to ${SEARCH_LIMIT.max}`;

/** The query of `GET /api/search` (the OpenAPI document's description of it too). */
export const searchParameters = z.object({
  q: z
    .string({ error: 'is required' })
    .min(1, 'must not be empty')
    .max(SEARCH_Q_MAX, `must be at most ${SEARCH_Q_MAX} characters`)
    .describe(
      `What to look for, 1 to ${SEARCH_Q_MAX} characters: a name or its beginning (typos, case, accents, punctuation and a trailing legal form such as Inc or GmbH are forgiven), or a domain, URL or e-mail address (the company with that website)`,
    )
    .meta({ examples: ['stripe'] }),
  types: z
    .string()
    .optional()
    .describe(`Comma-separated kinds: ${SEARCH_KINDS.join(', ')}; default: every kind the caller may read`),
  limit: z
    .number({ error: LIMIT_RANGE })
    .int(LIMIT_RANGE)
    .min(1, LIMIT_RANGE)
    .max(SEARCH_LIMIT.max, LIMIT_RANGE)
    .default(SEARCH_LIMIT.default)
    .describe(`Hits to return, 1 to ${SEARCH_LIMIT.max} (default ${SEARCH_LIMIT.default})`),
});

export interface SearchArguments {
  q?: string | null | undefined;
  types?: string | null | undefined;
  limit?: number | null | undefined;
}

/**
 * The search to run. `domainOf` reads `q` as a website's domain (null when it is no domain, URL or
 * e-mail address).
 */
export function readSearchRequest(principal: Principal, input: SearchArguments, domainOf: (q: string) => string | null): SearchQuery {
  const { kinds, details } = readKinds(principal, input.types ?? undefined);
  const parsed = searchParameters.safeParse(Object.fromEntries(Object.entries(input).filter(([, value]) => value != null)));
  if (!parsed.success) {
    details.push(...parsed.error.issues.map((issue): ErrorDetail => ({ path: issue.path.join('.') || 'q', message: issue.message })));
  }
  if (details.length || !parsed.success) throw validationError(details);
  const { q, limit } = parsed.data;
  return { q, kinds, limit, domain: kinds.includes('entity') ? domainOf(q) : null };
}

/** The kinds to search; one the caller may not read is 403 at once, an unknown one a detail of the 400. */
function readKinds(principal: Principal, written: string | undefined): { kinds: SearchKind[]; details: ErrorDetail[] } {
  const readable = SEARCH_KINDS.filter((kind) => principal.permissions.has(SEARCH_PERMISSION[kind]));
  if (written === undefined) {
    if (readable.length === 0) {
      throw new AppError('FORBIDDEN', `Searching needs the read permission of at least one kind: ${Object.values(SEARCH_PERMISSION).join(', ')}`);
    }
    return { kinds: readable, details: [] };
  }
  const names = [...new Set(written.split(',').map((name) => name.trim()))];
  const isKind = (name: string): name is SearchKind => (SEARCH_KINDS as readonly string[]).includes(name);
  const missing = names.filter(isKind).filter((kind) => !readable.includes(kind)).map((kind) => SEARCH_PERMISSION[kind]);
  if (missing.length) {
    throw new AppError('FORBIDDEN', `Searching these kinds needs the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}`);
  }
  const unknown = names.filter((name) => !isKind(name));
  if (!unknown.length) return { kinds: SEARCH_KINDS.filter((kind) => names.includes(kind)), details: [] };
  const matches = closeMatches(unknown, SEARCH_KINDS);
  const help = matches.length ? `close matches: ${matches.join(', ')}` : `known: ${SEARCH_KINDS.join(', ')}`;
  const message = `unknown type(s): ${unknown.map((name) => name || '(empty)').join(', ')}; ${help}`;
  return { kinds: [], details: [{ path: 'types', message }] };
}
