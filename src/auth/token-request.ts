/**
 * Reads a token request (RFC 6749 §4.4): a JSON or application/x-www-form-urlencoded body, client
 * credentials in the body (client_secret_post) or in HTTP Basic (client_secret_basic, whose parts are
 * form-urlencoded before base64, §2.3.1). Problems become OAuth errors, never the API envelope.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'slow_down';

/** An RFC 6749 §5.2 error: `{error, error_description}` with its status and headers. */
export class OAuthError extends Error {
  override name = 'OAuthError';
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export const invalidRequest = (description: string): OAuthError => new OAuthError('invalid_request', description, 400);

const PARAMETERS = ['grant_type', 'client_id', 'client_secret', 'audience', 'scope'] as const;
type Parameter = (typeof PARAMETERS)[number];

export type TokenParameters = Partial<Record<Parameter, string>>;

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Basic was used: a failure must answer with WWW-Authenticate. */
  viaBasic: boolean;
}

/** Client ids longer than this are not ours; refused without a lookup. */
export const MAX_CLIENT_ID_LENGTH = 256;

export function readParameters(contentType: string | undefined, body: string): TokenParameters {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded') return withoutNul(fromForm(body));
  if (mediaType === 'application/json') return withoutNul(fromJson(body));
  throw invalidRequest('The body must be application/x-www-form-urlencoded or application/json');
}

/** No credential or parameter of ours holds a NUL character, and PostgreSQL text cannot. */
function withoutNul(parameters: TokenParameters): TokenParameters {
  for (const [name, value] of Object.entries(parameters)) {
    if (value.includes('\u0000')) throw invalidRequest(`The ${name} parameter contains a NUL character`);
  }
  return parameters;
}

function fromForm(body: string): TokenParameters {
  const form = new URLSearchParams(body);
  const parameters: TokenParameters = {};
  for (const name of PARAMETERS) {
    const values = form.getAll(name);
    // RFC 6749 §3.2: parameters must not be included more than once.
    if (values.length > 1) throw invalidRequest(`The ${name} parameter is repeated`);
    if (values[0] !== undefined && values[0] !== '') parameters[name] = values[0];
  }
  return parameters;
}

function fromJson(body: string): TokenParameters {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw invalidRequest('The body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidRequest('The body must be a JSON object');
  const parameters: TokenParameters = {};
  for (const name of PARAMETERS) {
    const value = (parsed as Record<string, unknown>)[name];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw invalidRequest(`The ${name} parameter must be a string`);
    parameters[name] = value;
  }
  return parameters;
}

const decodeFormComponent = (text: string): string => decodeURIComponent(text.replace(/\+/g, ' '));

/** Credentials from Basic or the body; using both at once is refused (RFC 6749 §2.3). */
export function readClientCredentials(authorization: string | undefined, parameters: TokenParameters): ClientCredentials {
  if (authorization !== undefined) {
    const basic = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization);
    const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient('The Authorization header must be HTTP Basic client credentials', true);
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = decodeFormComponent(decoded.slice(0, colon));
      clientSecret = decodeFormComponent(decoded.slice(colon + 1));
      if (`${clientId}${clientSecret}`.includes('\u0000')) throw new Error('NUL');
    } catch {
      throw invalidClient('The Basic credentials are not correctly encoded', true);
    }
    if (parameters.client_secret !== undefined) throw invalidRequest('Send client credentials either in the body or in HTTP Basic, not both');
    if (parameters.client_id !== undefined && parameters.client_id !== clientId) {
      throw invalidRequest('client_id in the body differs from the one in HTTP Basic');
    }
    return { clientId, clientSecret, viaBasic: true };
  }
  if (parameters.client_id === undefined || parameters.client_secret === undefined) {
    throw invalidClient('Client authentication is required: client_id and client_secret, in the body or HTTP Basic', false);
  }
  return { clientId: parameters.client_id, clientSecret: parameters.client_secret, viaBasic: false };
}

export function invalidClient(description: string, viaBasic: boolean): OAuthError {
  const headers: Record<string, string> = viaBasic ? { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' } : {};
  return new OAuthError('invalid_client', description, 401, headers);
}
