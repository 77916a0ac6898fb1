/**
 * Remembers tokens whose signature and claims already verified, until they expire: checking an ES256
 * signature is the largest CPU cost of an authenticated request, and clients reuse one token for hours.
 * A changed byte is a miss (an entry answers only the very token it was made for); expiry is still
 * enforced on every use; revocation is not cached at all (authenticate.ts asks the database every request).
 *
 * Entries are found by the token's last characters, which belong to its signature, and the whole token
 * is compared before one answers: a Map keyed by the whole text hashed the ~700 characters of a token
 * on every request, which showed in the profile of a small read.
 */
import { CLOCK_TOLERANCE_SECONDS, type TokenVerifier, type VerifiedToken } from './verify.ts';
import type { MaybePromise } from '../maybe-promise.ts';

export const VERIFICATION_CACHE_SIZE = 10_000;

/** How many of a token's last characters find its entry (a JWS signature is far longer). */
const KEY_LENGTH = 32;

/**
 * A remembered verification is answered as it is; a promise only when the token must be verified.
 * `recall(token)`: the remembered verification alone (the token verified and has not expired), or undefined.
 */
export type CachedTokenVerifier = ((token: string) => MaybePromise<VerifiedToken>) & { recall(token: string): VerifiedToken | undefined };

interface Entry {
  token: string;
  verified: VerifiedToken;
}

export function withVerificationCache(verify: TokenVerifier, maxEntries = VERIFICATION_CACHE_SIZE): CachedTokenVerifier {
  const entries = new Map<string, Entry>();
  const keyOf = (token: string) => (token.length > KEY_LENGTH ? token.slice(-KEY_LENGTH) : token);
  const remembered = (token: string): VerifiedToken | undefined => {
    const entry = entries.get(keyOf(token));
    if (entry?.token !== token) return undefined;
    if (Date.now() / 1000 <= (entry.verified.payload.exp ?? 0) + CLOCK_TOLERANCE_SECONDS) return entry.verified;
    entries.delete(keyOf(token));
    return undefined;
  };
  const verifyAndRemember = async (token: string): Promise<VerifiedToken> => {
    const verified = await verify(token);
    if (typeof verified.payload.exp === 'number') {
      // Oldest first out: a Map iterates in insertion order.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(keyOf(token), { token, verified });
    }
    return verified;
  };
  return Object.assign((token: string) => remembered(token) ?? verifyAndRemember(token), { recall: remembered });
}
