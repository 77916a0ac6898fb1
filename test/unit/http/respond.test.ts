// The one writer, on node's own request and response objects: head, ETag and 304, compression in one call.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COMPRESSION_THRESHOLD } from '../../../src/http/compress.ts';
import { respond, respondStream } from '../../../src/http/respond.ts';
import { testExchange } from '../../helpers/exchange.ts';

const small = JSON.stringify({ data: { id: 1, name: 'Acme' } });
const large = JSON.stringify({ data: Array.from({ length: 40 }, (_, id) => ({ id, name: `Company ${id}`, tagline: 'robots for the factory floor' })) });

async function answer(method: string, headers: Record<string, string>, body: string, status = 200, own: Record<string, string> = {}) {
  const { exchange, written } = testExchange(method, '/api/entities', { 'x-request-id': 'req-1', ...headers });
  respond(exchange, { status, headers: own, body });
  return written();
}

describe('the head', () => {
  it('writes the request id first, the JSON type, the length and a weak ETag', async () => {
    const response = await answer('GET', {}, small);
    expect(response.order[0]).toBe('x-request-id');
    expect(response.headers['x-request-id']).toBe('req-1');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(small)));
    expect(response.headers.etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    expect(response.body.toString()).toBe(small);
  });

  it("puts the gathered headers under the answer's own, each written once", async () => {
    const { exchange, written } = testExchange('GET', '/api/entities');
    exchange.responseHeaders.set('RateLimit-Remaining', '7');
    exchange.responseHeaders.set('Deprecation', 'true');
    respond(exchange, { status: 429, headers: { 'RateLimit-Remaining': '0' }, body: small });
    const response = await written();
    expect(response.order.filter((name) => name === 'ratelimit-remaining')).toHaveLength(1);
    expect(response.headers['ratelimit-remaining']).toBe('0');
    expect(response.headers.deprecation).toBe('true');
  });

  it('answers a HEAD with the head of the GET and no body', async () => {
    const response = await answer('HEAD', { 'accept-encoding': 'gzip' }, large);
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(large)));
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toHaveLength(0);
  });
});

describe('conditional requests', () => {
  it("answers 304 without a body to a GET that holds the answer's own ETag", async () => {
    const first = await answer('GET', {}, small);
    const again = await answer('GET', { 'if-none-match': first.headers.etag! }, small);
    expect(again.status).toBe(304);
    expect(again.body).toHaveLength(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['content-type']).toBeUndefined();
  });

  it('answers in full when the ETag does not match, for a write, and for an error', async () => {
    const tag = (await answer('GET', {}, small)).headers.etag!;
    expect((await answer('GET', { 'if-none-match': '"other"' }, small)).status).toBe(200);
    const write = await answer('POST', { 'if-none-match': tag }, small, 201);
    expect(write.status).toBe(201);
    const error = await answer('GET', { 'if-none-match': tag }, small, 404);
    expect(error.status).toBe(404);
    // Neither is something to keep and ask about again: no validator.
    expect(write.headers.etag).toBeUndefined();
    expect(error.headers.etag).toBeUndefined();
  });

  it('gives the same ETag and the same 304 whatever the encoding', async () => {
    const identity = await answer('GET', {}, large);
    const gzip = await answer('GET', { 'accept-encoding': 'gzip' }, large);
    expect(gzip.headers.etag).toBe(identity.headers.etag);
    expect((await answer('GET', { 'accept-encoding': 'gzip', 'if-none-match': identity.headers.etag! }, large)).status).toBe(304);
  });
});

describe('compression', () => {
  it('compresses a body of the threshold or more in one call, and says so', async () => {
    expect(Buffer.byteLength(large)).toBeGreaterThanOrEqual(COMPRESSION_THRESHOLD);
    const response = await answer('GET', { 'accept-encoding': 'gzip, deflate, br' }, large);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers.vary).toBe('Accept-Encoding');
    expect(response.headers['content-length']).toBe(String(response.body.length));
    expect(gunzipSync(response.body).toString()).toBe(large);
  });

  it('uses brotli where it is the client\'s preference, and nothing it does not accept', async () => {
    const br = await answer('GET', { 'accept-encoding': 'br;q=1, gzip;q=0.5' }, large);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(large);
    expect((await answer('GET', { 'accept-encoding': 'identity' }, large)).headers['content-encoding']).toBeUndefined();
    expect((await answer('GET', { 'accept-encoding': 'gzip;q=0' }, large)).headers['content-encoding']).toBeUndefined();
  });

  it('leaves a small body as it is', async () => {
    const response = await answer('GET', { 'accept-encoding': 'gzip' }, small);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body.toString()).toBe(small);
  });

  it('keeps what a step put in Vary before (CORS: Origin)', async () => {
    const { exchange, written } = testExchange('GET', '/api/entities', { 'accept-encoding': 'gzip' });
    exchange.responseHeaders.setHeader('Vary', 'Origin');
    respond(exchange, { status: 200, body: large });
    const response = await written();
    expect(response.headers.vary).toBe('Origin, Accept-Encoding');
    // Once: the gathered Vary is the one the answer extends, not a second header line.
    expect(response.order.filter((name) => name === 'vary')).toHaveLength(1);
  });

  it('streams a stream through a compression stream', async () => {
    const { exchange, written } = testExchange('GET', '/api/entities', { 'accept-encoding': 'gzip' });
    const destination = respondStream(exchange, 200, { 'Content-Disposition': 'attachment; filename="entities.csv"' }, 'text/csv; charset=utf-8');
    destination.write('id,name\n');
    destination.end('1,Acme\n');
    const response = await written();
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['content-length']).toBeUndefined();
    expect(gunzipSync(response.body).toString()).toBe('id,name\n1,Acme\n');
  });
});
