// The store of compressed answers on its own: bounded by bytes, least recently used out first.
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createCompressedAnswers } from '../../../src/http/compressed-answers.ts';
import { weakEtag } from '../../../src/http/etag.ts';

async function counted(registry: Registry): Promise<{ made: number; reused: number }> {
  const text = await registry.metrics();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { made: value('compressed_answers_made_total'), reused: value('compressed_answers_reused_total') };
}

/** A body that does not compress: random bytes as hex text, so each entry holds about half its size. */
const body = (kilobytes: number) => JSON.stringify({ data: randomBytes(kilobytes * 512).toString('hex') });

describe('the compressed answers kept', () => {
  it('hold no more than their size in bytes, dropping the least recently used first', async () => {
    const registry = new Registry();
    const kept = createCompressedAnswers(1, registry)!;
    const bodies = Array.from({ length: 12 }, () => body(200));
    const first = kept.compress(bodies[0]!, 'gzip', weakEtag(bodies[0]!));
    expect(gunzipSync(first).toString('utf8')).toBe(bodies[0]);
    // Read again between the others, the first stays; the second, never read again, goes once 1 MiB is full.
    for (const other of bodies.slice(1)) {
      kept.compress(other, 'gzip', weakEtag(other));
      kept.compress(bodies[0]!, 'gzip', weakEtag(bodies[0]!));
    }
    expect(await counted(registry)).toEqual({ made: 12, reused: 11 });
    kept.compress(bodies[1]!, 'gzip', weakEtag(bodies[1]!));
    expect(await counted(registry)).toEqual({ made: 13, reused: 11 });
  });

  it('hold each form in memory of its own size, not in the 16 KiB buffer zlib wrote it into', () => {
    const kept = createCompressedAnswers(1, new Registry())!;
    const record = JSON.stringify({ data: { id: 1, name: 'Acme Robotics', tagline: 'robots for the factory floor '.repeat(40) } });
    const form = kept.compress(record, 'gzip', weakEtag(record));
    expect(gunzipSync(form).toString('utf8')).toBe(record);
    expect(form.length).toBeLessThan(1024);
    expect(form.buffer.byteLength).toBe(form.length);
    expect(kept.compress(record, 'gzip', weakEtag(record))).toBe(form);
  });

  it('are not made at all with a size of 0', () => {
    expect(createCompressedAnswers(0, new Registry())).toBeUndefined();
  });
});
