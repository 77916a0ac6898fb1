/**
 * Who is calling. Authentication (src/auth/authenticate.ts) builds the Principal from a verified token
 * in the context factory, for both transports; resolvers read it from `context.principal`.
 *
 * A principal's identity is (issuer, subject). The issuer is folded into the ids below once, where the
 * principal is built (identity.ts), so everything keyed by them (key ownership, usage, rate limits,
 * team membership) keeps the issuers apart without knowing about issuers: this service's own tokens
 * keep their ids as they are; an external issuer's are `<id>@<issuer>` (docs/auth.md, "Issuers").
 */
import { AppError } from '../errors.ts';

export interface Principal {
  /**
   * The caller's id here: the token's `sub` for our tokens (an API key's client_id, or a user id);
   * `<sub>@<issuer>` for an external issuer's. Stored as `created_by`, a team member's `user_id`.
   */
  readonly subject: string;
  readonly kind: 'api-key' | 'user';
  /**
   * The client the token was issued to, named the same way (equal to `subject` for our API keys and
   * CLI user tokens; `<client_id>@<issuer>` for an external issuer's). Usage is counted to it.
   */
  readonly clientId: string;
  /**
   * The client_id of the API key this token was issued for: set only on tokens this service issued from
   * /oauth/token. The one way a principal is an API key of ours (its revocation, its last_used_at, the
   * key itself counting as one of its own keys); no external token ever has it.
   */
  readonly apiKey?: string;
  readonly orgId: string;
  readonly permissions: ReadonlySet<string>;
}

/** The principal, for resolvers; fails closed if a context was somehow built without one. */
export function requirePrincipal(principal: Principal | null | undefined): Principal {
  if (!principal) throw new AppError('UNAUTHORIZED', 'Authentication is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  return principal;
}
