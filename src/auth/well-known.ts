/**
 * `/.well-known/jwks.json` (public keys only: active keys and retired ones until their tokens expire)
 * `/.well-known/openid-configuration` and `/.well-known/oauth-authorization-server` (so OAuth/OIDC
 * client libraries can discover the token endpoint and the keys), and RFC 9728 protected resource
 * metadata for a path (`/.well-known/oauth-protected-resource/mcp`), where MCP clients look first. Pure functions returning `[body, init]`; app.ts binds them.
 */
import type { Config } from '../config.ts';
import type { SigningKeyStore } from './key-store.ts';
import { PERMISSIONS } from './permissions.ts';
import { SIGNING_ALGORITHMS } from './signing-keys.ts';
import type { TokenHttpResponse } from './token-endpoint.ts';

const READ_METHODS = new Set(['GET', 'HEAD']);

function methodNotAllowed(method: string, path: string): TokenHttpResponse | undefined {
  if (READ_METHODS.has(method)) return undefined;
  return [
    { error: { code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on ${path}` } },
    { status: 405, headers: { Allow: 'GET, HEAD' } },
  ];
}

export async function jwksResponse(keys: SigningKeyStore, method: string): Promise<TokenHttpResponse> {
  const refused = methodNotAllowed(method, '/.well-known/jwks.json');
  if (refused) return refused;
  // Short enough that a rotation is picked up soon; verifiers refetch on an unknown kid anyway.
  return [await keys.publicJwks(), { status: 200, headers: { 'Cache-Control': 'public, max-age=300' } }];
}

/**
 * RFC 8414 authorization server metadata. Only the client-credentials grant exists: there is no
 * authorization endpoint, so `response_types_supported` (a member both RFC 8414 and OpenID Discovery
 * require) is empty rather than naming a flow nobody can use.
 */
export function authorizationServerMetadata(config: Config): Record<string, unknown> {
  return {
    issuer: config.PUBLIC_URL,
    jwks_uri: `${config.PUBLIC_URL}/.well-known/jwks.json`,
    token_endpoint: `${config.PUBLIC_URL}/oauth/token`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    response_types_supported: [],
    scopes_supported: [...PERMISSIONS],
  };
}

/** OpenID Discovery: the same metadata plus the members OpenID clients look for. */
export function openIdConfiguration(config: Config): Record<string, unknown> {
  return {
    ...authorizationServerMetadata(config),
    subject_types_supported: ['public'],
    claims_supported: ['iss', 'sub', 'aud', 'iat', 'exp', 'jti', 'permissions', 'org_id', 'gty'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    access_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
  };
}

export const DISCOVERY_PATHS = {
  openid: '/.well-known/openid-configuration',
  oauth: '/.well-known/oauth-authorization-server',
} as const;

export function discoveryResponse(config: Config, kind: keyof typeof DISCOVERY_PATHS, method: string): TokenHttpResponse {
  const refused = methodNotAllowed(method, DISCOVERY_PATHS[kind]);
  if (refused) return refused;
  const body = kind === 'openid' ? openIdConfiguration(config) : authorizationServerMetadata(config);
  return [body, { status: 200, headers: { 'Cache-Control': 'public, max-age=3600' } }];
}

/** Where RFC 9728 publishes the metadata of the protected resource at `path` (`/mcp`). */
export const protectedResourceMetadataPath = (path: string): string => `/.well-known/oauth-protected-resource${path}`;

/**
 * RFC 9728 metadata of the resource at `path`: the authorization servers whose tokens it takes are
 * ours (its metadata names the token endpoint) and, when one is configured, the external identity provider.
 */
export function protectedResourceMetadata(config: Config, path: string): Record<string, unknown> {
  const servers = [config.AUTH_URL, ...(config.OIDC_ISSUER ? [config.OIDC_ISSUER] : [])];
  return {
    resource: `${config.PUBLIC_URL}${path}`,
    authorization_servers: [...new Set(servers)],
    bearer_methods_supported: ['header'],
    scopes_supported: [...PERMISSIONS],
    resource_name: 'Venture Data API',
    resource_documentation: `${config.PUBLIC_URL}/docs`,
  };
}

export function protectedResourceResponse(config: Config, path: string, method: string): TokenHttpResponse {
  const refused = methodNotAllowed(method, protectedResourceMetadataPath(path));
  if (refused) return refused;
  return [protectedResourceMetadata(config, path), { status: 200, headers: { 'Cache-Control': 'public, max-age=3600' } }];
}

/** RFC 9728 §5.1: a 401 of the resource at `path` tells the client where its metadata is. */
export function resourceMetadataChallenge(config: Config, path: string, error?: string): string {
  const metadata = `resource_metadata="${config.PUBLIC_URL}${protectedResourceMetadataPath(path)}"`;
  return error ? `Bearer error="${error}", ${metadata}` : `Bearer ${metadata}`;
}
