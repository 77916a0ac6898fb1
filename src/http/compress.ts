/**
 * Compression of answers, decided once for every transport. A whole body (JSON, a page) is compressed
 * in one synchronous call: for a small answer a zlib stream costs several times the compression itself
 * (its work hops to libuv's threadpool and back), see bench/compression-cost.ts. Streams (CSV) stay
 * streams. Threshold, levels and the preference between gzip and brotli are the measured ones
 * (docs/request-pipeline.md, "Compression").
 */
import { brotliCompressSync, constants, createBrotliCompress, createDeflate, createGzip, deflateSync, gzipSync } from 'node:zlib';
import type { Transform } from 'node:stream';
import Negotiator from 'negotiator';

export type Encoding = 'gzip' | 'br' | 'deflate';

/** Bodies under this many bytes gain less than the call costs (and fit one packet either way). */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * gzip at level 3, the most thorough of zlib's fast levels: on a 29 KB list it costs 0.4 of the default
 * level's time for a body 10% larger (docs/request-pipeline.md, "Compression", has the table). Brotli at
 * the quality the `compression` middleware used.
 */
const GZIP = { level: 3, windowBits: 15 };
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

const AVAILABLE: Encoding[] = ['gzip', 'br', 'deflate'];
/** At equal preference, gzip: one call costs about half of brotli's at this quality for a small answer. */
const PREFERRED: Encoding[] = ['gzip', 'br', 'deflate'];

const COMPRESSIBLE = /^(?:application\/(?:[\w.+-]*json|javascript|xml)|text\/)/i;

export const isCompressible = (contentType: string): boolean => COMPRESSIBLE.test(contentType);

/** The encoding to use for a body of `bytes` bytes, or undefined to send it as it is. */
export function encodingFor(acceptEncoding: string | string[] | undefined, bytes: number): Encoding | undefined {
  if (acceptEncoding === undefined || bytes < COMPRESSION_THRESHOLD) return undefined;
  const key = typeof acceptEncoding === 'string' ? acceptEncoding : acceptEncoding.join(', ');
  let chosen = negotiated.get(key);
  if (chosen === undefined) {
    chosen = negotiate(key);
    // Clients send few distinct values (one per browser or library), so the bound is rarely reached;
    // a value longer than any client sends is negotiated each time, not kept (memory: 256 × 256 characters).
    if (key.length <= LONGEST_KEPT) {
      if (negotiated.size >= NEGOTIATIONS_KEPT) negotiated.clear();
      negotiated.set(key, chosen);
    }
  }
  return chosen === 'identity' ? undefined : chosen;
}

/**
 * Accept-Encoding values already negotiated: parsing one with a new Negotiator cost 2–4 µs, a fifth of a
 * record's compression, on every compressing answer.
 */
const negotiated = new Map<string, Encoding | 'identity'>();
const NEGOTIATIONS_KEPT = 256;
const LONGEST_KEPT = 256;

function negotiate(acceptEncoding: string): Encoding | 'identity' {
  // negotiator 1.x takes the preference for ties as a second argument (its typings predate it).
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as { encoding(available: string[], preferred: string[]): string | undefined };
  const chosen = negotiator.encoding([...AVAILABLE, 'identity'], PREFERRED);
  return chosen === undefined ? 'identity' : (chosen as Encoding | 'identity');
}

export function compressBody(body: string | Buffer, encoding: Encoding): Buffer {
  if (encoding === 'br') return brotliCompressSync(body, BROTLI);
  const options = deflateOptions(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  return encoding === 'gzip' ? gzipSync(body, options) : deflateSync(body, options);
}

/**
 * The deflate window sized to the body: a match reaches at most the window less 262 bytes back, so a
 * window that spans the whole body compresses it to the same bytes, and zlib sets up (and clears) only
 * that much state: a 1,300-byte record gzips in 11.5 µs instead of 12.7 (docs/request-pipeline.md, "Compression").
 */
function deflateOptions(bytes: number): { level: number; windowBits: number } {
  let windowBits = MIN_WINDOW_BITS;
  while (windowBits < MAX_WINDOW_BITS && 2 ** windowBits - MIN_LOOKAHEAD < bytes) windowBits += 1;
  return windowBits === MAX_WINDOW_BITS ? GZIP : (WINDOWED[windowBits] ??= { ...GZIP, windowBits });
}

const MIN_LOOKAHEAD = 262;
const MIN_WINDOW_BITS = 10;
const MAX_WINDOW_BITS = 15;
const WINDOWED: { level: number; windowBits: number }[] = [];

export function compressionStream(encoding: Encoding): Transform {
  if (encoding === 'gzip') return createGzip(GZIP);
  if (encoding === 'br') return createBrotliCompress(BROTLI);
  return createDeflate(GZIP);
}
