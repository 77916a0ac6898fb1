// Authentication of one request: the identity of a verified token is made once, and the RateLimit-*
// headers reach the response bag for an accepted request and for a refusal after the token alike.
import { describe, expect, it } from 'vitest';
import { createAuthenticator, type AuthenticationRequest } from '../../../src/auth/authenticate.ts';
import type { KeyState } from '../../../src/auth/key-status.ts';
import { createRateLimiter } from '../../../src/auth/rate-limit.ts';
import { CLIENT_CREDENTIALS_GRANT } from '../../../src/auth/tokens.ts';
import type { CachedTokenVerifier } from '../../../src/auth/verification-cache.ts';
import type { VerifiedToken } from '../../../src/auth/verify.ts';
import { HeaderBag } from '../../../src/header-bag.ts';
import { createLogger } from '../../../src/logger.ts';

const CLIENT = 'client-1';

/** A verifier that hands back one object per token, as the verification cache does while a token is valid. */
function verifierOf(tokens: Map<string, VerifiedToken>): CachedTokenVerifier {
  const verify = async (token: string): Promise<VerifiedToken> => {
    const verified = tokens.get(token);
    if (!verified) throw new Error(`unexpected token ${token}`);
    return verified;
  };
  return Object.assign(verify, { recall: (token: string) => tokens.get(token) });
}

const verifiedToken = (): VerifiedToken => ({
  source: 'local',
  payload: { sub: CLIENT, org_id: 'org-1', gty: CLIENT_CREDENTIALS_GRANT, permissions: ['read:entities'], exp: Date.now() / 1000 + 3600 },
});

function authenticator(tokens: Map<string, VerifiedToken>, keyState: KeyState = 'active') {
  return createAuthenticator({
    verify: verifierOf(tokens),
    keyStatus: { check: async () => keyState, touch: () => undefined },
    rateLimiter: createRateLimiter({ perSecond: 1, burst: 10, keyPrefix: 'test:', logger: createLogger({ level: 'silent' }) }),
    ensureOrganization: async () => undefined,
  });
}

function request(token: string, authorization = `Bearer ${token}`): AuthenticationRequest & { responseHeaders: HeaderBag } {
  const headers: Record<string, string> = { authorization, 'user-agent': 'tests/1.0', 'x-client-id': CLIENT };
  return { header: (name) => headers[name], responseHeaders: new HeaderBag() };
}

const headersOf = (bag: HeaderBag): Record<string, string> => {
  const headers: Record<string, string> = {};
  bag.forEach((value, name) => (headers[name] = value));
  return headers;
};

describe('createAuthenticator', () => {
  it('makes the identity of a verified token once', async () => {
    const tokens = new Map([['a', verifiedToken()]]);
    const authenticate = authenticator(tokens);
    const first = await authenticate(request('a'));
    const second = await authenticate(request('a'));
    expect(first.principal).toMatchObject({ subject: CLIENT, kind: 'api-key', apiKey: CLIENT, orgId: 'org-1' });
    expect(second.principal).toBe(first.principal);
    // A token verified again (a new verification, once the cached one expired) gets an identity of its own.
    tokens.set('a', verifiedToken());
    const third = await authenticate(request('a'));
    expect(third.principal).not.toBe(first.principal);
    expect(third.principal).toEqual(first.principal);
  });

  it('reads every spelling of a Bearer header the pattern allows, a known token or not', async () => {
    const authenticate = authenticator(new Map([['a', verifiedToken()]]));
    for (const authorization of ['Bearer a', 'bearer a', 'Bearer   a', 'BEARER a  ']) {
      await expect(authenticate(request('a', authorization))).resolves.toMatchObject({ principal: { subject: CLIENT } });
    }
    for (const authorization of ['Bearer a b', 'Bearer', 'Basic a', 'Bearer a!']) {
      await expect(authenticate(request('a', authorization))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it('puts the RateLimit-* headers on an accepted request', async () => {
    const accepted = request('a');
    await authenticator(new Map([['a', verifiedToken()]]))(accepted);
    expect(headersOf(accepted.responseHeaders)).toEqual({ 'ratelimit-limit': '10', 'ratelimit-remaining': '9', 'ratelimit-reset': '1' });
  });

  it('puts them on a request refused after its token was verified', async () => {
    const refused = request('a');
    await expect(authenticator(new Map([['a', verifiedToken()]]), 'revoked')(refused)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(headersOf(refused.responseHeaders)).toEqual({ 'ratelimit-limit': '10', 'ratelimit-remaining': '9', 'ratelimit-reset': '1' });
  });
});
