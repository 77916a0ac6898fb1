/**
 * The ETag of a response body, as express's default (the `etag` package, weak): `W/"<length in hex>-<the
 * first 27 characters of its SHA-1 in base64>"`, so validators given out before stay valid. Computed with
 * node's one-shot `crypto.hash`, which costs a fraction of the streaming Hash object the package builds for
 * every response. The writer (src/http/respond.ts) tags every answer with it.
 */
import { hash } from 'node:crypto';

export function weakEtag(body: string | Buffer, encoding?: BufferEncoding): string {
  // A UTF-8 string is hashed and measured as it is: copying it into a Buffer first cost an allocation
  // the size of the body on every response.
  if (typeof body === 'string' && (encoding === undefined || encoding === 'utf8' || encoding === 'utf-8')) {
    return tag(Buffer.byteLength(body, 'utf8'), hash('sha1', body, 'base64'));
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, encoding) : body;
  return tag(bytes.length, hash('sha1', bytes, 'base64'));
}

const tag = (length: number, sha1: string): string => `W/"${length.toString(16)}-${sha1.slice(0, 27)}"`;
