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
const GZIP = { level: 3 };
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

const AVAILABLE: Encoding[] = ['gzip', 'br', 'deflate'];
/** At equal preference, gzip: one call costs about half of brotli's at this quality for a small answer. */
const PREFERRED: Encoding[] = ['gzip', 'br', 'deflate'];

const COMPRESSIBLE = /^(?:application\/(?:[\w.+-]*json|javascript|xml)|text\/)/i;

export const isCompressible = (contentType: string): boolean => COMPRESSIBLE.test(contentType);

/** The encoding to use for a body of `bytes` bytes, or undefined to send it as it is. */
export function encodingFor(acceptEncoding: string | string[] | undefined, bytes: number): Encoding | undefined {
  if (acceptEncoding === undefined || bytes < COMPRESSION_THRESHOLD) return undefined;
  // negotiator 1.x takes the preference for ties as a second argument (its typings predate it).
  const negotiate = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as { encoding(available: string[], preferred: string[]): string | undefined };
  const chosen = negotiate.encoding([...AVAILABLE, 'identity'], PREFERRED);
  return chosen === undefined || chosen === 'identity' ? undefined : (chosen as Encoding);
}

export function compressBody(body: string | Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(body, GZIP);
  if (encoding === 'br') return brotliCompressSync(body, BROTLI);
  return deflateSync(body, GZIP);
}

export function compressionStream(encoding: Encoding): Transform {
  if (encoding === 'gzip') return createGzip(GZIP);
  if (encoding === 'br') return createBrotliCompress(BROTLI);
  return createDeflate(GZIP);
}
