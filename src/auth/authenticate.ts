/**
 * Authentication of one /api or /graphql request, in the contract's order: the three headers (400),
 * the token (401), X-Client-Id against the token (400), the key not revoked (401), the rate limit (429).
 * Permission checks come after, per operation (authorize.ts).
 */
import { AppError, type ErrorDetail } from '../errors.ts';
import type { Identity } from './identity.ts';
import { toIdentity } from './identity.ts';
import type { KeyStatus } from './key-status.ts';
import type { Principal } from './principal.ts';
import { rateLimitHeaders, type RateLimiter, type RateLimitResult } from './rate-limit.ts';
import type { CachedTokenVerifier } from './verification-cache.ts';
import { invalidToken, type VerifiedToken } from './verify.ts';
import type { HeaderBag } from '../header-bag.ts';

/** What a transport tells authentication about the request. */
export interface AuthenticationRequest {
  header(name: string): string | undefined;
  /** The response-header bag of the transport: RateLimit-* go there, for refusals after the token too. */
  responseHeaders?: HeaderBag;
  /**
   * Told who the caller is as soon as the token is verified, even if a later check refuses the
   * request: usage counting charges the request, error or not, to that client.
   */
  onIdentified?(principal: Principal): void;
}

export interface Authentication {
  principal: Principal;
}

/**
 * The in-memory answers (a remembered verification, key state and organisation, the memory bucket)
 * come as plain values and only the database or Redis as promises: a request whose answers are all
 * in memory awaits values, without a promise and a suspended call per step.
 */
export interface AuthenticatorDependencies {
  verify: CachedTokenVerifier;
  keyStatus: KeyStatus;
  rateLimiter: RateLimiter;
  ensureOrganization(orgId: string): Promise<void> | undefined;
  /** OIDC_ISSUER: our own tokens may not take ids in its namespace (identity.ts). */
  externalIssuer?: string | undefined;
}

// RFC 6750 §2.1: "Bearer" 1*SP b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

interface RequiredHeaders {
  token: string;
  clientId: string;
  /** The token's verification, when it was recalled from memory to read the header. */
  recalled: VerifiedToken | undefined;
}

/**
 * The three headers, every problem reported at once; User-Agent's message is the spec's. `recall(token)`
 * gives the verification of a token verified before, whose `Bearer <token>` matched the pattern then.
 */
export function readRequiredHeaders(request: AuthenticationRequest, recall: (token: string) => VerifiedToken | undefined = () => undefined): RequiredHeaders {
  const details: ErrorDetail[] = [];
  const authorization = request.header('authorization');
  // `Bearer <a token verified before>` needs no pattern: it matched it when the token was verified.
  const usual = authorization?.startsWith(USUAL_PREFIX) ? authorization.slice(USUAL_PREFIX.length) : undefined;
  const recalled = usual === undefined ? undefined : recall(usual);
  const token = recalled ? usual : authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (authorization === undefined || authorization.trim() === '') {
    details.push({ path: 'header.authorization', message: 'The Authorization header is required for API key requests: Bearer <access token>' });
  } else if (token === undefined) {
    details.push({ path: 'header.authorization', message: 'The Authorization header must be Bearer <access token>' });
  }
  if ((request.header('user-agent') ?? '').trim() === '') {
    details.push({ path: 'header.user-agent', message: 'The User-Agent header is required for API key requests' });
  }
  const clientId = (request.header('x-client-id') ?? '').trim();
  if (clientId === '') {
    details.push({ path: 'header.x-client-id', message: 'The X-Client-Id header is required for API key requests' });
  }
  if (details.length) {
    throw new AppError('VALIDATION_ERROR', details.map((detail) => detail.message).join('; '), { details });
  }
  return { token: token!, clientId, recalled };
}

const USUAL_PREFIX = 'Bearer ';

function checkClientId(identity: Identity, clientId: string): void {
  if (!identity.acceptedClientIds.has(clientId)) {
    throw new AppError('VALIDATION_ERROR', 'The X-Client-Id header does not match the client the token was issued to', {
      details: [{ path: 'header.x-client-id', message: 'must equal the client id the access token was issued to' }],
    });
  }
}

export function createAuthenticator(deps: AuthenticatorDependencies): (request: AuthenticationRequest) => Promise<Authentication> {
  // A verified token's identity, made once: the verifier hands back the same object while the token is
  // valid (src/auth/verification-cache.ts), and an identity depends on nothing else.
  const identities = new WeakMap<VerifiedToken, Identity>();
  const identify = (verified: VerifiedToken): Identity => {
    let identity = identities.get(verified);
    if (!identity) identities.set(verified, (identity = toIdentity(verified, deps.externalIssuer)));
    return identity;
  };
  // Each answer is awaited only when it is a promise: an await of a value still costs a microtask and
  // two promises, which made authentication most of a small read's promises.
  return async (request) => {
    const headers = readRequiredHeaders(request, deps.verify.recall);
    const verifying = headers.recalled ?? deps.verify(headers.token);
    const identity = identify(verifying instanceof Promise ? await verifying : verifying);
    const { principal } = identity;
    request.onIdentified?.(principal);
    // From here the client is known, so every answer carries its RateLimit-* headers, the refusals
    // below included: the bucket is taken now (alongside the key lookup) and refuses last, in the
    // documented order of checks. Users of one application share its client id; each gets a bucket of their own.
    // Both ids carry the issuer (identity.ts), so no external token draws from one of our keys' buckets.
    const limited = deps.rateLimiter.consume(principal.kind === 'user' ? `user:${principal.subject}` : `client:${principal.clientId}`);
    try {
      checkClientId(identity, headers.clientId);
      // Only our own client-credentials tokens name a key of ours; an external token never does.
      if (principal.apiKey !== undefined) {
        const checking = deps.keyStatus.check(principal.apiKey);
        const state = checking instanceof Promise ? await checking : checking;
        if (state === 'revoked') throw invalidToken('The API key of this access token has been revoked');
        if (state === 'unknown') throw invalidToken('The API key of this access token does not exist');
      }
      const ensuring = deps.ensureOrganization(principal.orgId);
      if (ensuring) await ensuring;
    } catch (error) {
      const limit = limited instanceof Promise ? await limited.catch(() => undefined) : limited;
      if (limit) setRateLimitHeaders(request, limit);
      throw error;
    }
    const limit = limited instanceof Promise ? await limited : limited;
    setRateLimitHeaders(request, limit);
    if (!limit.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit exceeded; retry in ${limit.retryAfterSeconds} s`, {
        headers: { ...rateLimitHeaders(limit), 'Retry-After': String(limit.retryAfterSeconds) },
      });
    }
    return { principal };
  };
}

function setRateLimitHeaders(request: AuthenticationRequest, limit: RateLimitResult): void {
  const headers = rateLimitHeaders(limit);
  for (const name in headers) request.responseHeaders?.set(name, headers[name]!);
}
