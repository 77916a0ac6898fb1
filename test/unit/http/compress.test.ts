// The compression choices the writer makes on every compressing answer: the negotiation remembered by
// header value, and the deflate window sized to the body, which must not change a byte of the output.
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import Negotiator from 'negotiator';
import { describe, expect, it, vi } from 'vitest';
import { compressBody, encodingFor } from '../../../src/http/compress.ts';

const LARGE = 4096;

describe('the encoding negotiated', () => {
  const cases: [string | string[], string | undefined][] = [
    ['gzip, deflate, br', 'gzip'],
    ['br', 'br'],
    ['br;q=1, gzip;q=0.5', 'br'],
    ['deflate', 'deflate'],
    ['identity', undefined],
    ['gzip;q=0, deflate;q=0, br;q=0', undefined],
    ['*', 'gzip'],
    [['gzip;q=0', 'br'], 'br'],
    ['', undefined],
  ];

  it('is the same asked once or again, in any order, for each value', () => {
    for (let pass = 0; pass < 3; pass += 1) {
      const order = pass === 1 ? [...cases].reverse() : cases;
      for (const [header, expected] of order) expect(encodingFor(header, LARGE), String(header)).toBe(expected);
    }
  });

  it('parses a value once: the next answers with it take the remembered encoding', () => {
    const parse = vi.spyOn(Negotiator.prototype, 'encoding');
    try {
      const header = 'gzip;q=0.8, br;q=0.9, x-unseen';
      for (let index = 0; index < 5; index += 1) expect(encodingFor(header, LARGE)).toBe('br');
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('negotiates a value longer than clients send every time, without keeping it', () => {
    const parse = vi.spyOn(Negotiator.prototype, 'encoding');
    try {
      const header = `br;q=0.9, gzip;q=0.8, ${'x-padding, '.repeat(40)}identity;q=0.1`;
      for (let index = 0; index < 3; index += 1) expect(encodingFor(header, LARGE)).toBe('br');
      expect(parse).toHaveBeenCalledTimes(3);
    } finally {
      parse.mockRestore();
    }
  });

  it('still answers right once more distinct values came than are remembered', () => {
    for (let index = 0; index < 600; index += 1) {
      expect(encodingFor(`gzip;q=0.${index % 9 + 1}, br;q=0.${(index + 4) % 9 + 1}`, LARGE)).toBe(index % 9 >= (index + 4) % 9 ? 'gzip' : 'br');
    }
    expect(encodingFor('gzip, deflate, br', LARGE)).toBe('gzip');
  });

  it('is nothing for a body under the threshold or a client that sends no Accept-Encoding', () => {
    expect(encodingFor('gzip', 100)).toBeUndefined();
    expect(encodingFor(undefined, LARGE)).toBeUndefined();
  });
});

describe('the deflate window sized to the body', () => {
  // JSON with repeats at every distance, so a match may reach back across the whole body.
  const bodyOf = (bytes: number) => {
    const parts: string[] = [];
    for (let index = 0; parts.join(',').length < bytes; index += 1) parts.push(JSON.stringify({ id: index, name: `Company ${index % 97}`, country: ['United States', 'Germany', 'India'][index % 3] }));
    return parts.join(',').slice(0, bytes);
  };

  it('gzips every size to the bytes the full window gives', () => {
    for (const bytes of [1024, 1300, 1500, 2000, 3800, 3835, 3840, 4000, 7900, 8000, 16_000, 31_000, 33_000, 70_000]) {
      const body = bodyOf(bytes);
      const ours = compressBody(body, 'gzip');
      expect(ours.equals(gzipSync(body, { level: 3 })), `${bytes} bytes`).toBe(true);
      expect(gunzipSync(ours).toString()).toBe(body);
    }
  });

  it('deflates to what inflates back to the body, the same compressed data as the full window', () => {
    for (const bytes of [1024, 3000, 9000, 40_000]) {
      const body = bodyOf(bytes);
      const ours = compressBody(Buffer.from(body), 'deflate');
      expect(inflateSync(ours).toString()).toBe(body);
      // The zlib header names the window (CINFO, its log2 less 8), the smallest that spans the body; the
      // deflate stream after the header, and its checksum, are the full window's.
      expect(ours[0]! >> 4, `${bytes} bytes`).toBe(Math.min(15, Math.max(10, Math.ceil(Math.log2(bytes + 262)))) - 8);
      expect(ours.subarray(2).equals(deflateSync(body, { level: 3 }).subarray(2)), `${bytes} bytes`).toBe(true);
    }
  });
});
