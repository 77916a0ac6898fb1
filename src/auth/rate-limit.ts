/**
 * Per-client rate limit as a token bucket: RATE_LIMIT_BURST requests at once, refilled at
 * RATE_LIMIT_PER_SECOND. Implemented as GCRA (the bucket kept as one "theoretical arrival time" per
 * client), in process memory, or in Redis through one atomic script so every instance shares it.
 *
 * Why not rate-limiter-flexible here (it guards the token endpoint): its limiters are fixed or
 * rolling windows, which let 2x the burst through at a window boundary; a token bucket needs the
 * refill. If Redis fails, the instance falls back to its own memory bucket rather than refusing or
 * waving everything through.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { MaybePromise } from '../maybe-promise.ts';

export interface RateLimitResult {
  allowed: boolean;
  /** The bucket size (RATE_LIMIT_BURST). */
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds to wait before a retry can pass (when not allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** A promise only when the bucket is kept in Redis: the memory bucket answers at once. */
  consume(key: string): MaybePromise<RateLimitResult>;
}

export interface RateLimitOptions {
  perSecond: number;
  burst: number;
  redis?: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
}

/** What one GCRA step returns: `ahead` = how far the bucket's arrival time runs ahead of now, in ms. */
interface Step {
  allowed: boolean;
  aheadMs: number;
  retryMs: number;
}

const GCRA_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local tau = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
if new_tat - now > tau then
  return {0, tostring(tat - now), tostring(new_tat - tau - now)}
end
redis.call('SET', KEYS[1], tostring(new_tat), 'PX', math.ceil(new_tat - now))
return {1, tostring(new_tat - now), '0'}
`;

export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const intervalMs = 1000 / options.perSecond;
  const tauMs = intervalMs * options.burst;
  const memory = memoryStep(intervalMs, tauMs);
  const redis = options.redis;
  let lastWarning = 0;

  const inRedis = async (key: string, redis: Redis): Promise<Step> => {
    try {
      const reply = (await redis.eval(GCRA_SCRIPT, 1, `${options.keyPrefix}${key}`, intervalMs, tauMs)) as [number, string, string];
      return { allowed: reply[0] === 1, aheadMs: Number(reply[1]), retryMs: Number(reply[2]) };
    } catch (error) {
      if (Date.now() - lastWarning > 60_000) {
        lastWarning = Date.now();
        options.logger.warn({ err: error }, 'rate limit store unavailable; limiting per instance');
      }
      return memory(key);
    }
  };

  const result = ({ allowed, aheadMs, retryMs }: Step): RateLimitResult => ({
    allowed,
    limit: options.burst,
    remaining: allowed ? Math.max(0, Math.floor((tauMs - aheadMs) / intervalMs)) : 0,
    resetSeconds: Math.max(0, Math.ceil(aheadMs / 1000)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(retryMs / 1000)),
  });

  return {
    consume: (key) => (redis ? inRedis(key, redis).then(result) : result(memory(key))),
  };
}

function memoryStep(intervalMs: number, tauMs: number): (key: string) => Step {
  const arrivals = new Map<string, number>();
  let nextSweep = 0;
  return (key) => {
    const now = Date.now();
    if (now > nextSweep) {
      // Drop buckets that are full again; they hold no information.
      for (const [candidate, tat] of arrivals) if (tat <= now) arrivals.delete(candidate);
      nextSweep = now + 60_000;
    }
    const tat = Math.max(arrivals.get(key) ?? now, now);
    const next = tat + intervalMs;
    if (next - now > tauMs) return { allowed: false, aheadMs: tat - now, retryMs: next - tauMs - now };
    arrivals.set(key, next);
    return { allowed: true, aheadMs: next - now, retryMs: 0 };
  };
}

/** The IETF draft RateLimit headers for a result. */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  return {
    'RateLimit-Limit': String(result.limit),
    'RateLimit-Remaining': String(result.remaining),
    'RateLimit-Reset': String(result.resetSeconds),
  };
}
