/**
 * Identity and access, assembled: token verification and the per-request authentication the context
 * factory calls, the token endpoint and the well-known documents. app.ts creates one per process and
 * wires it to HTTP and to the GraphQL plugins (src/graphql/use-auth.ts).
 */
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { createAuthenticator, type Authentication, type AuthenticationRequest } from './authenticate.ts';
import { createKeyStatus } from './key-status.ts';
import { SigningKeyStore } from './key-store.ts';
import { createOrganizationRegistry } from './organizations.ts';
import { createRateLimiter } from './rate-limit.ts';
import { createTokenEndpoint, type TokenHttpRequest, type TokenHttpResponse } from './token-endpoint.ts';
import { createTokenGuard } from './token-guard.ts';
import { withVerificationCache } from './verification-cache.ts';
import { createTokenVerifier } from './verify.ts';
import { discoveryResponse, jwksResponse } from './well-known.ts';

export interface Auth {
  /**
   * Authenticates a request. Each call does the whole work (and charges the rate limit): a transport
   * that asks twice for one request keeps the first answer itself (src/graphql/use-auth.ts).
   */
  authenticate(request: AuthenticationRequest): Promise<Authentication>;
  tokenEndpoint(request: TokenHttpRequest): Promise<TokenHttpResponse>;
  jwks(method: string): Promise<TokenHttpResponse>;
  /** OpenID Discovery (`openid`) or RFC 8414 metadata (`oauth`). */
  discovery(kind: 'openid' | 'oauth', method: string): TokenHttpResponse;
  readonly keys: SigningKeyStore;
  close(): Promise<void>;
}

export interface AuthDependencies {
  config: Config;
  sql: SqlClient;
  logger: Logger;
}

function connectRedis(url: string, logger: Logger): Redis {
  // No offline queue: while Redis is away, limiters fall back to memory instead of waiting.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  let lastWarning = 0;
  redis.on('error', (error: unknown) => {
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    logger.warn({ err: error }, 'redis unavailable');
  });
  return redis;
}

export function createAuth({ config, sql, logger }: AuthDependencies): Auth {
  const redis = config.REDIS_URL ? connectRedis(config.REDIS_URL, logger) : undefined;
  // One Redis may serve several deployments; their counters must not mix.
  const keyPrefix = `vda:${config.PUBLIC_URL}:`;
  const keys = new SigningKeyStore(sql, config, logger);
  const keyStatus = createKeyStatus(sql, logger);
  const authenticator = createAuthenticator({
    verify: withVerificationCache(createTokenVerifier(config, keys)),
    keyStatus,
    rateLimiter: createRateLimiter({
      perSecond: config.RATE_LIMIT_PER_SECOND,
      burst: config.RATE_LIMIT_BURST,
      redis,
      keyPrefix: `${keyPrefix}api:`,
      logger,
    }),
    ensureOrganization: createOrganizationRegistry(sql),
    externalIssuer: config.OIDC_ISSUER,
  });
  const guard = createTokenGuard({ redis, keyPrefix, logger });

  return {
    authenticate: authenticator,
    tokenEndpoint: createTokenEndpoint({ config, sql, keys, keyStatus, guard, logger }),
    jwks: (method) => jwksResponse(keys, method),
    discovery: (kind, method) => discoveryResponse(config, kind, method),
    keys,
    close: async () => {
      await keyStatus.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
