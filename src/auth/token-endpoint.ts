/**
 * `POST /oauth/token`, client credentials grant (RFC 6749 §4.4), as a pure function from the request
 * to `[body, init]`; app.ts binds it to HTTP. An unknown client, a wrong secret and a revoked key get
 * the same answer after the same work (a hash comparison always runs). No refresh tokens.
 *
 * `audience` may be left out (it defaults to PUBLIC_URL, the only audience there is); any other value
 * is `access_denied`. `scope` (space-separated permissions) narrows the token to a subset of the key's.
 */
import type { Config } from '../config.ts';
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { findCredential, type KeyCredential, type KeyStatus } from './key-status.ts';
import type { SigningKeyStore } from './key-store.ts';
import { MAX_SECRET_LENGTH, verifySecret } from './secrets.ts';
import type { TokenGuard } from './token-guard.ts';
import {
  invalidClient,
  invalidRequest,
  MAX_CLIENT_ID_LENGTH,
  OAuthError,
  readClientCredentials,
  readParameters,
  type ClientCredentials,
  type TokenParameters,
} from './token-request.ts';
import { issueAccessToken } from './tokens.ts';

export interface TokenHttpRequest {
  method: string;
  contentType: string | undefined;
  body: string;
  authorization: string | undefined;
  /** The caller's address, for brute-force limits. */
  address: string;
}

export type TokenHttpResponse = [body: unknown, init: { status: number; headers: Record<string, string> }];

export interface TokenEndpointDependencies {
  config: Config;
  sql: SqlClient;
  keys: SigningKeyStore;
  keyStatus: KeyStatus;
  guard: TokenGuard;
  logger: Logger;
}

// RFC 6749 §5.1 and §5.2: token responses, errors included, must not be cached.
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function createTokenEndpoint(deps: TokenEndpointDependencies): (request: TokenHttpRequest) => Promise<TokenHttpResponse> {
  return async (request) => {
    if (request.method !== 'POST') {
      return [
        { error: { code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not allowed on /oauth/token` } },
        { status: 405, headers: { Allow: 'POST' } },
      ];
    }
    try {
      return await grant(deps, request);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return [
        { error: error.code, error_description: error.description },
        { status: error.status, headers: { ...NO_STORE, ...error.headers } },
      ];
    }
  };
}

async function grant(deps: TokenEndpointDependencies, request: TokenHttpRequest): Promise<TokenHttpResponse> {
  const parameters = readParameters(request.contentType, request.body);
  if (parameters.grant_type === undefined) throw invalidRequest('The grant_type parameter is required');
  if (parameters.grant_type !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', 'Only the client_credentials grant is supported', 400);
  }
  const credentials = readClientCredentials(request.authorization, parameters);
  const key = await authenticateClient(deps, credentials, request.address);

  const audience = parameters.audience?.replace(/\/+$/, '');
  if (audience !== undefined && audience !== deps.config.PUBLIC_URL) {
    throw new OAuthError('access_denied', `The audience must be ${deps.config.PUBLIC_URL}`, 403);
  }
  const permissions = grantedPermissions(key, parameters);
  const { accessToken, expiresIn } = await issueAccessToken(deps.keys, deps.config, {
    subject: credentials.clientId,
    orgId: key.orgId,
    permissions,
    kind: 'api-key',
  });
  deps.keyStatus.touch(credentials.clientId);
  const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn };
  if (parameters.scope !== undefined) body.scope = permissions.join(' ');
  return [body, { status: 200, headers: { ...NO_STORE } }];
}

async function authenticateClient(
  deps: TokenEndpointDependencies,
  credentials: ClientCredentials,
  address: string,
): Promise<KeyCredential> {
  const clientId = credentials.clientId.slice(0, MAX_CLIENT_ID_LENGTH);
  const wait = await deps.guard.attempt(clientId, address);
  if (wait !== undefined) {
    throw new OAuthError('slow_down', `Too many failed attempts; retry in ${wait} s`, 429, { 'Retry-After': String(wait) });
  }
  const plausible = credentials.clientId.length <= MAX_CLIENT_ID_LENGTH && credentials.clientSecret.length <= MAX_SECRET_LENGTH;
  const key = plausible ? await findCredential(deps.sql, credentials.clientId) : undefined;
  // Always hash: unknown, revoked and wrong-secret answers must take the same time.
  const matches = await verifySecret(credentials.clientSecret, key?.secretHash);
  if (!key || key.revoked || !matches) {
    throw invalidClient('Client authentication failed', credentials.viaBasic);
  }
  await deps.guard.succeeded(clientId, address);
  return key;
}

function grantedPermissions(key: KeyCredential, parameters: TokenParameters): string[] {
  if (parameters.scope === undefined) return key.permissions;
  const requested = [...new Set(parameters.scope.split(' ').filter(Boolean))];
  const extra = requested.filter((permission) => !key.permissions.includes(permission));
  if (requested.length === 0) throw new OAuthError('invalid_scope', 'The scope parameter is empty', 400);
  if (extra.length) throw new OAuthError('invalid_scope', `The key does not hold: ${extra.join(', ')}`, 400);
  return requested;
}
