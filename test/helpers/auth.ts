// Credentials for tests: every /api and /graphql request needs a token and the three headers.
//
//   const auth = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
//   const response = await auth.fetch('/api/entities');           // headers added for you
//   const { body } = await auth.graphql('{ entities { data { id } } }');
//   await fetch(url, { headers: auth.headers });                  // or use the headers yourself
//
// The key is written straight to the test database; the token comes from POST /oauth/token, as a
// client would get it. User tokens are signed with the app's own key, as `token:user` does.
import { createApiKey, type CreatedApiKey } from '../../src/auth/api-keys.ts';
import { SigningKeyStore } from '../../src/auth/key-store.ts';
import { PERMISSIONS, type Permission } from '../../src/auth/permissions.ts';
import { issueAccessToken } from '../../src/auth/tokens.ts';
import { createLogger } from '../../src/logger.ts';
import type { TestApp } from './app.ts';

export const ALL_PERMISSIONS: readonly Permission[] = PERMISSIONS;
export const TEST_USER_AGENT = 'venture-data-api-tests/1.0 (tests@example.com)';
export const TEST_ORG = 'test-org';

export interface TestCredentials {
  /** The API key's id (undefined for user tokens). */
  keyId: number | undefined;
  clientId: string;
  /** Empty for user tokens. */
  clientSecret: string;
  orgId: string;
  permissions: readonly string[];
  token: string;
  /** Authorization, User-Agent and X-Client-Id. */
  headers: Record<string, string>;
  /** app.fetch with the three headers added (headers in `init` win). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /**
   * POST /graphql; `body` is the parsed JSON answer. Without `accept` the request accepts any media
   * type, which the server answers as `application/json` (request errors then 200, GraphQL over HTTP).
   */
  graphql(query: string, variables?: Record<string, unknown>, options?: { accept?: string }): Promise<{ status: number; body: GraphQLBody }>;
}

export interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: {
    message: string;
    path?: (string | number)[];
    locations?: { line: number; column: number }[];
    extensions?: { code?: string; details?: { path: string; message: string }[] };
  }[];
}

/** The GraphQL-over-HTTP media type: request errors keep their 4xx status. */
export const GRAPHQL_RESPONSE = 'application/graphql-response+json';

export interface CredentialOptions {
  /** Default: every permission. */
  permissions?: readonly string[];
  /** Default: TEST_ORG. */
  org?: string;
  name?: string;
  createdBy?: string;
}

export function authHeaders(token: string, clientId: string): Record<string, string> {
  return { Authorization: `Bearer ${token}`, 'User-Agent': TEST_USER_AGENT, 'X-Client-Id': clientId };
}

/** An API key in the test database, as `key:create` makes one. */
export function createTestApiKey(app: TestApp, options: CredentialOptions = {}): Promise<CreatedApiKey> {
  return createApiKey(app.db.prisma, {
    name: options.name ?? 'test key',
    permissions: [...(options.permissions ?? ALL_PERMISSIONS)],
    orgId: options.org ?? TEST_ORG,
    createdBy: options.createdBy ?? 'tests',
  });
}

/** POST /oauth/token as a form with client_secret_post, answered as it is (for status checks). */
export function postTokenRequest(app: TestApp, key: { client_id: string; client_secret: string }): Promise<Response> {
  return app.fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret }).toString(),
  });
}

/** POST /oauth/token with client_secret_post; throws unless it answers 200. */
export async function requestToken(app: TestApp, clientId: string, clientSecret: string, extra: Record<string, string> = {}): Promise<string> {
  const response = await app.fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: app.config.PUBLIC_URL, ...extra }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** A new API key and a token for it, with ready-made headers. */
export async function createApiKeyAndToken(app: TestApp, options: CredentialOptions = {}): Promise<TestCredentials> {
  const key = await createTestApiKey(app, options);
  const token = await requestToken(app, key.client_id, key.client_secret);
  return credentials(app, { keyId: key.id, clientId: key.client_id, clientSecret: key.client_secret, orgId: options.org ?? TEST_ORG, permissions: key.permissions, token });
}

/** A user token (subject `user`), signed with the app's key like `token:user`; X-Client-Id is the user id. */
export async function createUserToken(
  app: TestApp,
  options: { user: string; org?: string; permissions?: readonly string[] },
): Promise<TestCredentials> {
  const keys = new SigningKeyStore(app.db.sql, app.config, createLogger({ level: 'silent' }));
  const permissions = options.permissions ?? ALL_PERMISSIONS;
  const orgId = options.org ?? TEST_ORG;
  const { accessToken } = await issueAccessToken(keys, app.config, { subject: options.user, orgId, permissions, kind: 'user' });
  return credentials(app, { keyId: undefined, clientId: options.user, clientSecret: '', orgId, permissions, token: accessToken });
}

type CredentialFields = Pick<TestCredentials, 'keyId' | 'clientId' | 'clientSecret' | 'orgId' | 'permissions' | 'token'>;

function credentials(app: TestApp, fields: CredentialFields): TestCredentials {
  const headers = authHeaders(fields.token, fields.clientId);
  const fetchWith = (path: string, init: RequestInit = {}) => {
    const merged = new Headers(headers);
    new Headers(init.headers).forEach((value, name) => merged.set(name, value));
    return app.fetch(path, { ...init, headers: merged });
  };
  return {
    ...fields,
    headers,
    fetch: fetchWith,
    graphql: async (query, variables, options = {}) => {
      const response = await fetchWith('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.accept ? { accept: options.accept } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as GraphQLBody };
    },
  };
}
