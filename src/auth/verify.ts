/**
 * Verifies a Bearer token. Our own tokens are checked against our own key set only; with OIDC_ISSUER
 * set, that issuer's tokens are checked against its JWKS (createRemoteJWKSet). Algorithms, issuer,
 * audience and a 30 s clock tolerance are fixed here: nothing in a token chooses how it is verified,
 * and headers like `jku`, `x5u` or an embedded `jwk` are never used to find a key.
 */
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { SigningKeyStore } from './key-store.ts';
import { SIGNING_ALGORITHMS } from './signing-keys.ts';
import { ACCESS_TOKEN_TYPE } from './tokens.ts';

export const CLOCK_TOLERANCE_SECONDS = 30;
/** Far above any real token (ours are under 1 KB); refused before any parsing. */
export const MAX_TOKEN_LENGTH = 8192;

const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface VerifiedToken {
  /** `local`: signed by this service; `external`: by OIDC_ISSUER. */
  source: 'local' | 'external';
  payload: JWTPayload;
}

export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

export const invalidToken = (message: string): AppError =>
  new AppError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

export function createTokenVerifier(config: Config, keys: SigningKeyStore): TokenVerifier {
  const external = config.OIDC_ISSUER ? externalIssuer(config) : undefined;
  return async (token) => {
    if (token.length > MAX_TOKEN_LENGTH) throw invalidToken('The access token is too long');
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw invalidToken('The access token is malformed');
    }
    const source = issuer === config.PUBLIC_URL ? 'local' : 'external';
    try {
      if (source === 'local') {
        const { payload } = await jwtVerify(token, keys.verificationKey, {
          algorithms: [...SIGNING_ALGORITHMS],
          issuer: config.PUBLIC_URL,
          audience: config.PUBLIC_URL,
          typ: ACCESS_TOKEN_TYPE,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        return { source: 'local', payload };
      }
      if (external && issuer === external.issuer) {
        const { payload } = await jwtVerify(token, external.keys, {
          algorithms: EXTERNAL_ALGORITHMS,
          issuer: external.issuer,
          audience: external.audience,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['sub', 'exp'],
        });
        return { source: 'external', payload };
      }
    } catch (error) {
      throw toAuthError(error, source);
    }
    throw invalidToken('The access token was issued by an unknown issuer');
  };
}

interface ExternalIssuer {
  issuer: string;
  audience: string;
  keys: JWTVerifyGetKey;
}

function externalIssuer(config: Config): ExternalIssuer {
  const issuer = config.OIDC_ISSUER!;
  const jwksUrl = new URL(config.OIDC_JWKS_URL ?? `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`);
  // jose caches the set, refetches on an unknown kid at most every cooldown, and times out slow fetches.
  const jwks = createRemoteJWKSet(jwksUrl, { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
  return { issuer, audience: config.OIDC_AUDIENCE ?? config.PUBLIC_URL, keys: jwks };
}

function toAuthError(error: unknown, source: VerifiedToken['source']): unknown {
  if (error instanceof AppError) return error;
  // Our own key set failed to load (database trouble): let the caller see a 5xx, logged with its cause.
  if (source === 'local' && !(error instanceof errors.JOSEError)) return error;
  if (error instanceof errors.JWTExpired) return invalidToken('The access token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return invalidToken(claimMessage(error));
  if (error instanceof errors.JOSEAlgNotAllowed) return invalidToken('The access token is signed with an algorithm that is not accepted');
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalidToken('The access token signature is invalid');
  if (error instanceof errors.JWKSNoMatchingKey) return invalidToken('The access token is signed with an unknown key');
  if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
    // The identity provider's key set could not be fetched: not the caller's fault.
    return new AppError('SERVICE_UNAVAILABLE', 'The identity provider keys are unavailable', {
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
  return invalidToken('The access token is invalid');
}

function claimMessage(error: InstanceType<typeof errors.JWTClaimValidationFailed>): string {
  switch (error.claim) {
    case 'nbf':
    case 'iat':
      return error.reason === 'check_failed' ? 'The access token is not yet valid' : `The access token "${error.claim}" claim is invalid`;
    case 'iss':
      return 'The access token was issued by another issuer';
    case 'aud':
      return 'The access token is for another audience';
    case 'typ':
      return 'The access token has the wrong type';
    default:
      return `The access token "${error.claim}" claim is missing or invalid`;
  }
}
