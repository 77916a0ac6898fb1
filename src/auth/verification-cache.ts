/**
 * Remembers tokens whose signature and claims already verified, until they expire: checking an ES256
 * signature is the largest CPU cost of an authenticated request, and clients reuse one token for hours.
 * The key is the whole token text, so a changed byte is a miss; expiry is still enforced on every use;
 * revocation is not cached at all (authenticate.ts asks the database every request).
 */
import { CLOCK_TOLERANCE_SECONDS, type TokenVerifier, type VerifiedToken } from './verify.ts';

export const VERIFICATION_CACHE_SIZE = 10_000;

/** A remembered verification is answered as it is; a promise only when the token must be verified. */
export type CachedTokenVerifier = (token: string) => VerifiedToken | Promise<VerifiedToken>;

export function withVerificationCache(verify: TokenVerifier, maxEntries = VERIFICATION_CACHE_SIZE): CachedTokenVerifier {
  const verified = new Map<string, VerifiedToken>();
  const verifyAndRemember = async (token: string): Promise<VerifiedToken> => {
    const result = await verify(token);
    if (typeof result.payload.exp === 'number') {
      // Oldest first out: a Map iterates in insertion order.
      if (verified.size >= maxEntries) verified.delete(verified.keys().next().value!);
      verified.set(token, result);
    }
    return result;
  };
  return (token) => {
    const cached = verified.get(token);
    if (cached && Date.now() / 1000 <= (cached.payload.exp ?? 0) + CLOCK_TOLERANCE_SECONDS) return cached;
    verified.delete(token);
    return verifyAndRemember(token);
  };
}
