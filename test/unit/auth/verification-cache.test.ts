// The verification cache saves repeated signature checks but never extends a token's life.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withVerificationCache } from '../../../src/auth/verification-cache.ts';
import { CLOCK_TOLERANCE_SECONDS, invalidToken, type VerifiedToken } from '../../../src/auth/verify.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');

function recordingVerifier(expiresIn: number) {
  const calls: string[] = [];
  const verify = async (token: string): Promise<VerifiedToken> => {
    calls.push(token);
    const exp = NOW / 1000 + expiresIn;
    if (Date.now() / 1000 > exp + CLOCK_TOLERANCE_SECONDS) throw invalidToken('The access token has expired');
    return { source: 'local', payload: { sub: token, exp } };
  };
  return { calls, verify };
}

describe('withVerificationCache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies a token once while it is valid', async () => {
    vi.useFakeTimers({ now: NOW });
    const { calls, verify } = recordingVerifier(3600);
    const cached = withVerificationCache(verify);
    for (let use = 0; use < 5; use += 1) expect((await cached('a')).payload.sub).toBe('a');
    expect(calls).toEqual(['a']);
    // Answered from memory as a value: no promise, no microtask.
    expect(cached('a')).not.toBeInstanceOf(Promise);
    await cached('b');
    expect(calls).toEqual(['a', 'b']);
  });

  it('verifies again once the token has expired, and then refuses it', async () => {
    vi.useFakeTimers({ now: NOW });
    const { calls, verify } = recordingVerifier(60);
    const cached = withVerificationCache(verify);
    await cached('a');
    vi.setSystemTime(NOW + (60 + CLOCK_TOLERANCE_SECONDS + 1) * 1000);
    await expect(cached('a')).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token has expired' });
    expect(calls).toEqual(['a', 'a']);
  });

  it('never caches a failed verification', async () => {
    let attempts = 0;
    const cached = withVerificationCache(async () => {
      attempts += 1;
      throw invalidToken('The access token signature is invalid');
    });
    await expect(cached('x')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(cached('x')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(attempts).toBe(2);
  });

  it('answers only the very token it verified, whatever the tokens share', async () => {
    vi.useFakeTimers({ now: NOW });
    const { calls, verify } = recordingVerifier(3600);
    const cached = withVerificationCache(verify);
    // Entries are found by a token's last characters: these two end alike and differ in their first.
    const signature = 'S'.repeat(64);
    const first = `a.${signature}`;
    const second = `b.${signature}`;
    await cached(first);
    expect(cached.recall(first)?.payload.sub).toBe(first);
    expect(cached.recall(second)).toBeUndefined();
    expect((await cached(second)).payload.sub).toBe(second);
    expect(calls).toEqual([first, second]);
  });

  it('recalls a token only while it is valid', async () => {
    vi.useFakeTimers({ now: NOW });
    const { verify } = recordingVerifier(60);
    const cached = withVerificationCache(verify);
    expect(cached.recall('a')).toBeUndefined();
    await cached('a');
    expect(cached.recall('a')?.payload.sub).toBe('a');
    vi.setSystemTime(NOW + (60 + CLOCK_TOLERANCE_SECONDS + 1) * 1000);
    expect(cached.recall('a')).toBeUndefined();
  });

  it('holds at most the given number of tokens, dropping the oldest', async () => {
    vi.useFakeTimers({ now: NOW });
    const { calls, verify } = recordingVerifier(3600);
    const cached = withVerificationCache(verify, 2);
    await cached('a');
    await cached('b');
    await cached('c');
    await cached('b');
    await cached('a');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});
