/**
 * Who is calling. Authentication (src/auth/authenticate.ts) builds the Principal from a verified token
 * in the context factory, for both transports; resolvers read it from `context.principal`.
 */
import { AppError } from '../errors.ts';

export interface Principal {
  /** The token's subject: an API key's client_id, or a user id. */
  readonly subject: string;
  readonly kind: 'api-key' | 'user';
  /** The client the token was issued to (equal to `subject` for our API keys and CLI user tokens). */
  readonly clientId: string;
  readonly orgId: string;
  readonly permissions: ReadonlySet<string>;
}

/** The principal, for resolvers; fails closed if a context was somehow built without one. */
export function requirePrincipal(principal: Principal | null | undefined): Principal {
  if (!principal) throw new AppError('UNAUTHORIZED', 'Authentication is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  return principal;
}
