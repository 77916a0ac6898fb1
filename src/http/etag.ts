/**
 * The ETag of a response body, as express's default (the `etag` package, weak): `W/"<length in hex>-<the
 * first 27 characters of its SHA-1 in base64>"`, so validators given out before stay valid. Computed with
 * node's one-shot `crypto.hash`, which costs a fraction of the streaming Hash object the package builds for
 * every response. Both the express path and the direct one (src/http/direct-rest.ts) tag bodies with it.
 */
import { hash } from 'node:crypto';

export function weakEtag(body: string | Buffer, encoding?: BufferEncoding): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, encoding) : body;
  return `W/"${bytes.length.toString(16)}-${hash('sha1', bytes, 'base64').slice(0, 27)}"`;
}
