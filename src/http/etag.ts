/**
 * The ETag of a response body, as express's default (the `etag` package, weak): `W/"<length in hex>-<the
 * first 27 characters of its SHA-1 in base64>"`, so validators given out before stay valid. Computed with
 * node's one-shot `crypto.hash`, which costs a fraction of the streaming Hash object the package builds for
 * every response. The writer (src/http/respond.ts) tags every answer with it.
 */
import { hash } from 'node:crypto';

/** A body's length in bytes, a string's as UTF-8. */
export const byteLengthOf = (body: string | Buffer): number => (typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length);

/**
 * `bytes` is the body's length when the caller measured it already (the writer needs it for
 * Content-Length). A string is hashed as UTF-8 as it is: copying it into a Buffer first cost an
 * allocation the size of the body on every response.
 */
export function weakEtag(body: string | Buffer, bytes = byteLengthOf(body)): string {
  return `W/"${bytes.toString(16)}-${hash('sha1', body, 'base64').slice(0, 27)}"`;
}
