// Pure parts of webhook delivery: the signature against the Standard Webhooks published test vector
// (and plain node:crypto, as docs/webhooks.md shows receivers), the default retry schedule, the
// address classification behind URL safety, secrets at rest, and the settings' checks.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { secretBox, SecretUnavailable } from '../../../src/changes/secret-box.ts';
import { DEFAULT_RETRY_DELAYS_MS, DISABLE_FAILING_AFTER_MS, retryDelay } from '../../../src/changes/retry-schedule.ts';
import { signatureHeaders } from '../../../src/changes/send.ts';
import { specialRange } from '../../../src/changes/webhook-url.ts';
import { CHANGE_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES, changeResource } from '../../../src/changes/events.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';

// The vector of the Standard Webhooks specification's libraries (standard-webhooks/standard-webhooks).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signing', () => {
  it('matches the published test vector', () => {
    const headers = signatureHeaders(VECTOR.secret, VECTOR.id, VECTOR.payload, new Date(VECTOR.timestamp * 1000));
    expect(headers).toEqual({ 'webhook-id': VECTOR.id, 'webhook-timestamp': String(VECTOR.timestamp), 'webhook-signature': VECTOR.signature });
  });

  it('is what a receiver computes with node:crypto alone', () => {
    const at = new Date();
    const body = JSON.stringify({ type: 'entity.created', timestamp: at.toISOString(), data: { id: 'c1' } });
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const headers = signatureHeaders(secret, 'evt_1', body, at);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`evt_1.${headers['webhook-timestamp']}.${body}`).digest('base64');
    const given = headers['webhook-signature']!.split(' ').map((part) => part.split(',')[1]!);
    expect(given.some((signature) => timingSafeEqual(Buffer.from(signature), Buffer.from(expected)))).toBe(true);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });
});

describe('the default retry schedule', () => {
  it('retries first within a minute, then with growing delays, for at least 24 hours, then gives up', () => {
    const delays = Array.from({ length: 20 }, (_, index) => retryDelay(index + 1));
    const scheduled = delays.filter((delay): delay is number => delay !== null);
    expect(scheduled[0]).toBeLessThanOrEqual(60_000);
    for (let index = 1; index < scheduled.length; index += 1) expect(scheduled[index]).toBeGreaterThanOrEqual(scheduled[index - 1]!);
    expect(scheduled.reduce((sum, delay) => sum + delay, 0)).toBeGreaterThanOrEqual(24 * 3_600_000);
    // After the last retry: failed, and nothing after it.
    expect(delays.slice(scheduled.length).every((delay) => delay === null)).toBe(true);
    expect(scheduled).toEqual([...DEFAULT_RETRY_DELAYS_MS]);
    expect(retryDelay(0)).toBeNull();
    expect(DISABLE_FAILING_AFTER_MS).toBe(3 * 24 * 3_600_000);
  });

  it('follows a configured schedule', () => {
    expect([1, 2, 3].map((failures) => retryDelay(failures, [100, 200]))).toEqual([100, 200, null]);
  });
});

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['10.1.2.3', 'private'], ['172.31.255.255', 'private'], ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'], ['100.64.0.1', 'carrierGradeNat'], ['0.0.0.0', 'unspecified'], ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'], ['::1', 'loopback'], ['::', 'unspecified'], ['fc00::1', 'uniqueLocal'], ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'], ['ff02::1', 'multicast'], ['::ffff:10.0.0.1', 'private'], ['::ffff:127.0.0.1', 'loopback'],
  ])('%s is %s', (address, range) => {
    expect(specialRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])('%s is public', (address) => {
    expect(specialRange(address)).toBeUndefined();
  });
});

describe('event types', () => {
  it('are the change types of six resources, each with its read permission, the two ecosystem events and the two export events', () => {
    expect(CHANGE_EVENT_TYPES).toHaveLength(18);
    expect(SUBSCRIBABLE_EVENT_TYPES).toEqual([...CHANGE_EVENT_TYPES, 'ecosystem.entity_entered', 'ecosystem.entity_left', 'export.succeeded', 'export.failed']);
    expect(changeResource('news.deleted')).toBe('news');
    expect(changeResource('transaction.created')).toBe('transactions');
    expect(changeResource('ecosystem.entity_left')).toBeUndefined();
    expect(changeResource('webhook.test')).toBeUndefined();
  });
});

describe('settings', () => {
  it('has safe defaults and refuses a lease shorter than the timeout', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ WEBHOOK_ALLOW_PRIVATE_URLS: false, WEBHOOK_TIMEOUT_MS: 10_000, WEBHOOK_LEASE_MS: 60_000 });
    expect(config.WEBHOOK_RETRY_DELAYS_MS).toBeUndefined();
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '100,2000' }).WEBHOOK_RETRY_DELAYS_MS).toEqual([100, 2000]);
    expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '1s,2s' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '5000' })).toThrow(/WEBHOOK_LEASE_MS/);
  });
});

describe('secrets at rest', () => {
  const key = Buffer.alloc(32, 9);
  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

  it('are sealed with the key (a fresh IV each time) and opened again; without a key they are kept as they are', () => {
    const box = secretBox(key);
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^enc:v1:/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
    expect(secretBox(undefined).seal(secret)).toBe(secret);
    // A secret stored before the key was configured still opens.
    expect(box.open(secret)).toBe(secret);
  });

  it('cannot be opened without the key, with another key, or once altered', () => {
    const sealed = secretBox(key).seal(secret);
    expect(() => secretBox(undefined).open(sealed)).toThrow(SecretUnavailable);
    expect(() => secretBox(Buffer.alloc(32, 1)).open(sealed)).toThrow(/another WEBHOOK_SECRET_KEY/);
    const parts = sealed.split(':');
    const altered = [...parts.slice(0, -1), Buffer.from('x'.repeat(60)).toString('base64')].join(':');
    expect(() => secretBox(key).open(altered)).toThrow(SecretUnavailable);
  });

  it('take a configured key of exactly 32 bytes', () => {
    expect(loadConfig({ WEBHOOK_SECRET_KEY: key.toString('base64') }).WEBHOOK_SECRET_KEY).toBe(key.toString('base64'));
    expect(() => loadConfig({ WEBHOOK_SECRET_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/WEBHOOK_SECRET_KEY/);
  });
});
