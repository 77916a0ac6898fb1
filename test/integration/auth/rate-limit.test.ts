// Per-client rate limits: token-bucket arithmetic, 429 with Retry-After, RateLimit-* headers on both
// transports, and one bucket shared by two instances through Redis.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRateLimiter } from '../../../src/auth/rate-limit.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { rawRequest } from '../../helpers/raw-http.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = createLogger({ level: 'silent' });

describe('token bucket (memory)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets a burst through, then refills at the rate', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const limiter = createRateLimiter({ perSecond: 2, burst: 4, keyPrefix: '', logger: silent });
    const results = [];
    for (let i = 0; i < 5; i += 1) results.push(await limiter.consume('a'));
    expect(results.map((result) => [result.allowed, result.remaining])).toEqual([[true, 3], [true, 2], [true, 1], [true, 0], [false, 0]]);
    expect(results[4]).toMatchObject({ limit: 4, retryAfterSeconds: 1, resetSeconds: 2 });
    expect((await limiter.consume('b')).remaining).toBe(3);

    vi.advanceTimersByTime(500);
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume('a')).allowed).toBe(false);

    vi.advanceTimersByTime(2_000);
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 3, resetSeconds: 1 });
    // The memory bucket answers at once, as a value: no promise per request.
    expect(limiter.consume('c')).toMatchObject({ allowed: true, remaining: 3 });
  });

  it('never lets more than the burst through at once, whatever the timing', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00.999Z') });
    const limiter = createRateLimiter({ perSecond: 50, burst: 100, keyPrefix: '', logger: silent });
    let allowed = 0;
    for (let i = 0; i < 300; i += 1) if ((await limiter.consume('k')).allowed) allowed += 1;
    vi.advanceTimersByTime(2); // across a second boundary: a fixed window would reset here
    for (let i = 0; i < 300; i += 1) if ((await limiter.consume('k')).allowed) allowed += 1;
    expect(allowed).toBe(100);
  });
});

describe('over HTTP', () => {
  let app: TestApp;
  let client: TestCredentials;

  beforeAll(async () => {
    app = await startTestApp({ env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' } });
    client = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  });

  afterAll(async () => {
    await app.close();
  });

  it('counts REST and GraphQL in one bucket per client; 429 RATE_LIMITED with Retry-After when empty', async () => {
    const first = await client.fetch('/api/entities');
    expect(first.status).toBe(200);
    expect([first.headers.get('ratelimit-limit'), first.headers.get('ratelimit-remaining')]).toEqual(['3', '2']);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);

    const forbidden = await client.fetch('/api/founders');
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('ratelimit-remaining')).toBe('1');

    const graphql = await client.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(graphql.status).toBe(200);
    expect(graphql.headers.get('ratelimit-remaining')).toBe('0');

    const limited = await client.fetch('/api/entities');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await limited.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('Rate limit exceeded') } });
    // Each header once, compressed or not (fetch asks for gzip; a raw request asks for nothing).
    const raw = await rawRequest(`${app.url}/api/entities`, { headers: client.headers });
    expect(raw.status).toBe(429);
    expect(raw.headers.filter(([name]) => /^(ratelimit-remaining|retry-after)$/i.test(name)).map(([, value]) => value)).toEqual(['0', '1']);

    const limitedGraphql = await client.graphql('{ __typename }');
    expect(limitedGraphql.status).toBe(429);
    expect(limitedGraphql.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  });

  it('gives every client its own bucket, and limits only after authentication', async () => {
    const other = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    expect((await other.fetch('/api/entities')).status).toBe(200);
    const unauthenticated = await app.fetch('/api/entities');
    expect(unauthenticated.status).toBe(400);
    expect(unauthenticated.headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('shared through Redis', () => {
  it('two instances on one database share one bucket per client', async () => {
    const env = {
      REDIS_URL,
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: '4',
      // Both instances serve one PUBLIC_URL (a load balancer's); random, so runs never share keys.
      PUBLIC_URL: `http://api-${randomBytes(4).toString('hex')}.test`,
    };
    const first = await startTestApp({ env });
    const second = await startTestApp({ db: first.db, env });
    try {
      const client = await createApiKeyAndToken(first, { permissions: ['read:entities'] });
      const statuses = [];
      for (const instance of [first, second, first, second, first, second]) {
        statuses.push((await instance.fetch('/api/entities', { headers: client.headers })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('falls back to a per-instance bucket when Redis is unreachable', async () => {
    const app = await startTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' } });
    try {
      const client = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await client.fetch('/api/entities')).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });
});
