/**
 * Who is calling. The transports build the request context from a Principal; until authentication
 * exists (issue 4) the context carries `principal: null` and nothing is checked. There is no fake
 * principal: this file is the seam where verification plugs in.
 */
export interface Principal {
  /** The token's subject: an API key's client_id, or a user id. */
  readonly subject: string;
  readonly kind: 'api-key' | 'user';
  /** The API key's client_id (equal to `subject` for API keys). */
  readonly clientId: string;
  readonly orgId: string;
  readonly permissions: ReadonlySet<string>;
}
