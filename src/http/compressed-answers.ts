/**
 * The compressed forms of read answers already sent, kept so the same answer is compressed once, not
 * once per request: a popular record, a dashboard's list or a page's GraphQL query is read again and
 * again with the same body, and compressing it is most of what a compressing client's read costs
 * (docs/request-pipeline.md, "Compression"). Keyed by the encoding and the body's validator (its length
 * and SHA-1, the ETag's): a form is found only by a server holding the very same body, so nothing of one
 * caller's answer reaches another. Bounded by bytes (COMPRESSION_CACHE_MB), least recently used first out.
 */
import { LRUCache } from 'lru-cache';
import type { Registry } from 'prom-client';
import { tally } from '../tally.ts';
import { compressBody, type Encoding } from './compress.ts';

/** What an entry costs beside its bytes: the key and the cache's own bookkeeping, roughly. */
const ENTRY_OVERHEAD = 200;

export interface CompressedAnswers {
  /** `body` compressed with `encoding`; `validator` is the body's weak ETag. */
  compress(body: string | Buffer, encoding: Encoding, validator: string): Buffer;
}

export function createCompressedAnswers(megabytes: number, registry: Registry): CompressedAnswers | undefined {
  if (megabytes === 0) return undefined;
  const kept = new LRUCache<string, Buffer>({
    maxSize: megabytes * 1024 * 1024,
    sizeCalculation: (compressed, key) => compressed.length + key.length + ENTRY_OVERHEAD,
  });
  const reused = tally({
    name: 'compressed_answers_reused_total',
    help: 'Compressed read answers sent from the compressed form kept of the same body, without compressing again',
    registers: [registry],
  });
  const compressed = tally({
    name: 'compressed_answers_made_total',
    help: 'Read answers compressed for a client (their compressed form is then kept for the next read of the same body)',
    registers: [registry],
  });
  return {
    compress(body, encoding, validator) {
      const key = `${encoding} ${validator}`;
      let form = kept.get(key);
      if (form) {
        reused.inc();
        return form;
      }
      form = ownBytes(compressBody(body, encoding));
      compressed.inc();
      kept.set(key, form);
      return form;
    },
  };
}

/**
 * The bytes in a buffer of their own. zlib's one-call result is a view on its 16 KiB output buffer: kept
 * as it is, a 600-byte record would hold 16 KiB, thirty times what the bound counts.
 */
function ownBytes(view: Buffer): Buffer {
  if (view.byteOffset === 0 && view.buffer.byteLength === view.length) return view;
  const own = Buffer.allocUnsafeSlow(view.length);
  view.copy(own);
  return own;
}
