/**
 * Brute-force protection for the token endpoint (rate-limiter-flexible): every credential check
 * spends a point per client_id and per address up front (atomic, so parallel guesses count too); a
 * success gives them back. Over either limit: 429 with Retry-After, before any secret is checked.
 *
 * Trade-off: client ids are not secret, so anyone can use up a client's budget and delay its next
 * token by up to the window. Its tokens already issued keep working, and a secret of 256 random bits
 * cannot be guessed anyway; the limit matters for weak operator-chosen secrets.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger.ts';

export const FAILURES_PER_CLIENT = 10;
export const FAILURES_PER_ADDRESS = 100;
export const FAILURE_WINDOW_SECONDS = 600;

export interface TokenGuard {
  /** Counts an attempt; resolves to the seconds to wait when the client or address is over its limit. */
  attempt(clientId: string, address: string): Promise<number | undefined>;
  /** A successful authentication: the attempt is not held against the client or the address. */
  succeeded(clientId: string, address: string): Promise<void>;
}

export interface TokenGuardOptions {
  redis?: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
}

function limiter(options: TokenGuardOptions, name: string, points: number): RateLimiterAbstract {
  const settings = { keyPrefix: `${options.keyPrefix}${name}`, points, duration: FAILURE_WINDOW_SECONDS };
  const memory = new RateLimiterMemory(settings);
  if (!options.redis) return memory;
  return new RateLimiterRedis({ ...settings, storeClient: options.redis, rejectIfRedisNotReady: true, insuranceLimiter: memory });
}

export function createTokenGuard(options: TokenGuardOptions): TokenGuard {
  const byClient = limiter(options, 'oauth-client:', FAILURES_PER_CLIENT);
  const byAddress = limiter(options, 'oauth-address:', FAILURES_PER_ADDRESS);

  const spend = async (target: RateLimiterAbstract, key: string): Promise<number | undefined> => {
    try {
      await target.consume(key);
      return undefined;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      // The store failed even with the memory insurance: do not lock everybody out over it.
      options.logger.warn({ err: rejection }, 'token endpoint limiter failed');
      return undefined;
    }
  };

  return {
    attempt: async (clientId, address) => (await spend(byAddress, address)) ?? (await spend(byClient, clientId)),
    succeeded: async (clientId, address) => {
      await Promise.all([byClient.delete(clientId), byAddress.reward(address, 1)]).catch((error: unknown) =>
        options.logger.warn({ err: error }, 'token endpoint limiter failed'),
      );
    },
  };
}
