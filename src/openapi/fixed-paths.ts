/**
 * The paths served outside the REST route table: the token endpoint, the well-known documents and the
 * operational endpoints. No table describes them, so they are written here, next to what they
 * reference (OAuth error codes, the OpenID configuration the service really serves).
 */
import type { Config } from '../config.ts';
import type { OAuthErrorCode } from '../auth/token-request.ts';
import { authorizationServerMetadata, openIdConfiguration } from '../auth/well-known.ts';
import { IDENTIFYING_HEADERS } from './permissions.ts';
import { apiAnswerHeaders, errorResponses, publicErrorResponse } from './responses.ts';
import { componentRef, exactObject, schemaOfValue } from './schema-helpers.ts';
import type { JsonSchema, JsonValue, PathItem, Reference, ResponseObject } from './types.ts';

/** Status of each OAuth error (src/auth/token-request.ts); `satisfies` makes a new code a compile error here. */
const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_client: 401,
  access_denied: 403,
  slow_down: 429,
} as const satisfies Record<OAuthErrorCode, number>;

const OAUTH_ERROR_CODES = Object.keys(OAUTH_ERROR_STATUS) as OAuthErrorCode[];

export const FIXED_SCHEMAS: Record<string, JsonSchema> = {
  TokenRequest: {
    type: 'object',
    required: ['grant_type'],
    properties: {
      grant_type: { type: 'string', enum: ['client_credentials'] },
      client_id: { type: 'string', description: 'Unless sent with HTTP Basic' },
      client_secret: { type: 'string', description: 'Unless sent with HTTP Basic' },
      audience: { type: 'string', description: 'The base address (PUBLIC_URL, the default); any other is `access_denied`' },
      scope: { type: 'string', description: "Space-separated permissions narrowing the token to a subset of the key's" },
    },
    examples: [{ grant_type: 'client_credentials', client_id: 'k3Lq9xZ2pV7mB4nR', client_secret: 'vds_...', audience: 'http://localhost:3000' }],
  },
  TokenResponse: exactObject(
    {
      access_token: { type: 'string', description: 'A JWT (ES256 or EdDSA) with `kid`' },
      token_type: { type: 'string', enum: ['Bearer'] },
      expires_in: { type: 'integer', description: 'Seconds' },
      scope: { type: 'string', description: 'The granted permissions, when `scope` was asked for' },
    },
    ['scope'],
  ),
  OAuthError: exactObject({
    error: { type: 'string', enum: OAUTH_ERROR_CODES },
    error_description: { type: 'string' },
  }),
  Jwks: exactObject({
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kty', 'kid'],
        properties: Object.fromEntries(['kty', 'kid', 'alg', 'use', 'crv', 'x', 'y'].map((name) => [name, { type: 'string' }])),
      },
    },
  }),
  Status: exactObject({ status: { type: 'string' } }),
};

/** The tags of the paths below; the resources' tags come with their declarations. */
export const FIXED_TAGS = [
  { name: 'auth', description: 'Access tokens (OAuth 2.0 client credentials) and the documents that verify and discover them.' },
  { name: 'operations', description: 'Liveness, readiness and Prometheus metrics, for load balancers and monitoring.' },
];

/** Another method on a path here is 405 METHOD_NOT_ALLOWED with `Allow` (src/app.ts, src/auth). */
const METHOD_NOT_ALLOWED = { 405: { $ref: '#/components/responses/Error405' } };

/**
 * What the token endpoint answers in the API's envelope, not RFC 6749's: a body over the limits (the
 * body reader), an unexpected failure and an unavailable database (the app's error handler, src/app.ts).
 */
const ENVELOPE_ERRORS = Object.fromEntries([413, 500, 503].map((status) => [status, publicErrorResponse(status)]));

const jsonResponse = (description: string, schemaName: string, headers?: ResponseObject['headers']): ResponseObject => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: componentRef(schemaName) } } },
});

const NO_STORE = { 'Cache-Control': { schema: { type: 'string' as const, const: 'no-store' } } };

function tokenPath(): PathItem {
  const body = { schema: { $ref: componentRef('TokenRequest') } };
  return {
    description: 'Other methods: 405.',
    post: {
      operationId: 'oauthToken',
      summary: 'Get an access token',
      tags: ['auth'],
      description:
        'Client credentials grant (RFC 6749 §4.4), credentials in the body or in HTTP Basic. ' +
        'Errors are RFC 6749 §5.2 bodies, not the API envelope.',
      security: [{}, { clientBasic: [] }],
      requestBody: { required: true, content: { 'application/json': body, 'application/x-www-form-urlencoded': body } },
      responses: withRequestId({ 200: jsonResponse('A token', 'TokenResponse', NO_STORE), ...oauthErrorResponses(), ...METHOD_NOT_ALLOWED, ...ENVELOPE_ERRORS }),
    },
  };
}

/** One response per status, naming its OAuth error codes. */
function oauthErrorResponses(): Record<string, ResponseObject> {
  const statuses = [...new Set(Object.values(OAUTH_ERROR_STATUS))];
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = OAUTH_ERROR_CODES.filter((code) => OAUTH_ERROR_STATUS[code] === status).map((code) => `\`${code}\``);
      const headers = status === 429 ? { ...NO_STORE, 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : NO_STORE;
      return [String(status), jsonResponse(codes.join(', '), 'OAuthError', headers)];
    }),
  );
}

type Responses = Record<string, ResponseObject | Reference>;

/** Every answer of the app carries its X-Request-Id (src/http/request-id.ts); the components say so themselves. */
function withRequestId(responses: Responses): Responses {
  const id = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, '$ref' in response ? response : { ...response, headers: { ...id, ...response.headers } }]),
  );
}

/** A public GET: no token (`security: []`), 405 for any other method. */
function getPath(operationId: string, summary: string, tag: string, description: string, responses: Responses): PathItem {
  return {
    description: 'Other methods: 405.',
    get: { operationId, summary, tags: [tag], description, security: [], responses: withRequestId({ ...responses, ...METHOD_NOT_ALLOWED }) },
  };
}

/** RFC 8414 §2 and OpenID Discovery §3: every array member of the metadata is an array of strings. */
const METADATA_ARRAY_ITEMS: JsonSchema = { type: 'string' };

/** An export's file (src/http/export-files.ts): bytes, not JSON, so outside the route table. */
function exportFilePath(): PathItem {
  const bytes = { 'application/gzip': { schema: { type: 'string' as const, contentMediaType: 'application/gzip' } }, 'application/vnd.apache.parquet': { schema: { type: 'string' as const, contentMediaType: 'application/vnd.apache.parquet' } } };
  const fileHeaders = {
    'Content-Length': { schema: { type: 'integer' as const } },
    ETag: { description: 'The file\'s sha256, quoted', schema: { type: 'string' as const } },
    'Accept-Ranges': { schema: { type: 'string' as const, const: 'bytes' } },
  };
  // An /api path: its errors are the shared components, RateLimit-* included once the token is read.
  const errors = errorResponses([400, 401, 404, 408, 410, 416, 429, 431, 500, 503]);
  return {
    description: 'Other methods: 405.',
    get: {
      operationId: 'getExportFile',
      summary: "Download an export's file",
      tags: ['exports'],
      description:
        "A file of a succeeded export of the caller's organisation (`files[].url`): `.ndjson.gz` and `.csv.gz` are gzip, `.parquet` Parquet. " +
        'One byte range (`Range: bytes=a-b`, `a-`, `-n`) answers 206 with `Content-Range`; the parts concatenate to the file. ' +
        'An expired export is 410 `EXPORT_EXPIRED`.',
      security: [{ bearerAuth: [], ...IDENTIFYING_HEADERS }, { oauth2: [], ...IDENTIFYING_HEADERS }],
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        { name: 'n', in: 'path', required: true, schema: { type: 'integer', minimum: 1 }, description: 'The file\'s number, from 1' },
        // RFC 9110 §14.2: a Range the server does not take (another unit, several ranges, bad syntax) is ignored.
        { name: 'Range', in: 'header', required: false, schema: { type: 'string' }, description: 'One byte range, `bytes=a-b`, `bytes=a-` or `bytes=-n`; any other value is ignored and the whole file sent' },
      ],
      responses: withRequestId({
        200: { description: 'The whole file', headers: { ...apiAnswerHeaders(200), ...fileHeaders }, content: bytes },
        206: { description: 'The range asked for', headers: { ...apiAnswerHeaders(206), ...fileHeaders, 'Content-Range': { schema: { type: 'string' as const } } }, content: bytes },
        ...errors,
        ...METHOD_NOT_ALLOWED,
      }),
    },
  };
}

export function fixedPaths(config: Config): Record<string, PathItem> {
  const discovery = openIdConfiguration(config) as { [key: string]: JsonValue };
  const metadata = authorizationServerMetadata(config) as { [key: string]: JsonValue };
  return {
    '/oauth/token': tokenPath(),
    '/api/exports/{id}/files/{n}': exportFilePath(),
    '/.well-known/jwks.json': getPath('jwks', 'Public keys that verify access tokens', 'auth', 'The public keys that verify access tokens.', {
      200: jsonResponse('The key set', 'Jwks'),
      // The keys are read from the database.
      500: publicErrorResponse(500),
      503: publicErrorResponse(503),
    }),
    '/.well-known/openid-configuration': getPath('openidConfiguration', 'OpenID Connect discovery document', 'auth', 'Discovery for OAuth and OpenID clients.', {
      // Described from the document the service really serves (src/auth/well-known.ts).
      200: { description: 'The configuration', content: { 'application/json': { schema: schemaOfValue(discovery, METADATA_ARRAY_ITEMS), example: discovery } } },
    }),
    '/.well-known/oauth-authorization-server': getPath('oauthAuthorizationServer', 'OAuth 2.0 authorization server metadata', 'auth', 'RFC 8414 authorization server metadata.', {
      200: { description: 'The metadata', content: { 'application/json': { schema: schemaOfValue(metadata, METADATA_ARRAY_ITEMS), example: metadata } } },
    }),
    '/healthz': getPath('healthz', 'Liveness check', 'operations', 'Liveness: the process answers.', {
      200: jsonResponse('`{"status": "ok"}`', 'Status'),
    }),
    '/readyz': getPath('readyz', 'Readiness check (the database answers)', 'operations', 'Readiness: the database answers.', {
      200: jsonResponse('`{"status": "ready"}`', 'Status'),
      503: publicErrorResponse(503),
    }),
    '/metrics': getPath('metrics', 'Prometheus metrics', 'operations', 'Prometheus metrics: process, and request durations by endpoint and status.', {
      200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
    }),
  };
}
