/**
 * Remembers tokens whose signature and claims already verified, until they expire: checking an ES256
 * signature is the largest CPU cost of an authenticated request, and clients reuse one token for hours.
 * The key is the whole token text, so a changed byte is a miss; expiry is still enforced on every use;
 * revocation is not cached at all (authenticate.ts asks the database every request).
 */
import { CLOCK_TOLERANCE_SECONDS, type TokenVerifier, type VerifiedToken } from './verify.ts';

export const VERIFICATION_CACHE_SIZE = 10_000;

export function withVerificationCache(verify: TokenVerifier, maxEntries = VERIFICATION_CACHE_SIZE): TokenVerifier {
  const verified = new Map<string, VerifiedToken>();
  return async (token) => {
    const cached = verified.get(token);
    const nowSeconds = Date.now() / 1000;
    if (cached && nowSeconds <= (cached.payload.exp ?? 0) + CLOCK_TOLERANCE_SECONDS) return cached;
    verified.delete(token);
    const result = await verify(token);
    if (typeof result.payload.exp === 'number') {
      // Oldest first out: a Map iterates in insertion order.
      if (verified.size >= maxEntries) verified.delete(verified.keys().next().value!);
      verified.set(token, result);
    }
    return result;
  };
}
