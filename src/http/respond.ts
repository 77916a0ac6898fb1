/**
 * The one writer of every API answer (REST, /graphql, /mcp refusals, the token endpoint): its head in
 * one `writeHead`, the request id first, the headers gathered while serving (CORS, RateLimit-*) under
 * the answer's own; a read's weak ETag and the 304 of a conditional GET, computed once on the body as it is;
 * then the body compressed in one synchronous call when the client accepts it (src/http/compress.ts).
 * A stream (CSV) gets the same head and leaves through a compression stream instead.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Writable } from 'node:stream';
import fresh from 'fresh';
import { stringify } from '../compile/json-text.ts';
import { toErrorEnvelope, type AppError } from '../errors.ts';
import { compressBody, compressionStream, encodingFor, isCompressible, type Encoding } from './compress.ts';
import { byteLengthOf, weakEtag } from './etag.ts';
import { exchangeOf, type Exchange } from './exchange.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** An answer as the transports hand it to the writer: nothing is written before `respond`. */
export interface Answer {
  status: number;
  /** The answer's own headers; they win over the ones gathered on the exchange. */
  headers?: Readonly<Record<string, string>>;
  /** The whole body, or undefined for none (204, a HEAD's). */
  body?: string | Buffer;
  /** Defaults to JSON. */
  contentType?: string;
  /**
   * An answer to a read sent by POST (a GraphQL query): its compressed form is kept like a GET's
   * (src/http/compressed-answers.ts). An answer to a write never is: it may hold a secret shown once.
   */
  read?: boolean;
}

/** A transport's `[body, init]` as an answer (a compiled read's records are JSON text already). */
export function jsonAnswer(body: unknown, init: { status: number; headers?: Readonly<Record<string, string>> }): Answer {
  return { status: init.status, headers: init.headers, body: body === undefined ? undefined : stringify(body) };
}

/** An AppError in the contract's envelope. */
export const errorAnswer = (error: AppError): Answer => jsonAnswer(toErrorEnvelope(error), { status: error.status, headers: error.headers });

/** Refuses a request handed to express (src/http/site.ts) in the contract's envelope, by the same writer. */
export const refuse = (req: IncomingMessage, error: AppError): void => respond(exchangeOf(req), errorAnswer(error));

/** Writes `answer` whole. */
export function respond(exchange: Exchange, answer: Answer): void {
  const { res, req } = exchange;
  const body = answer.body;
  if (answer.status === 204 || answer.status === 304 || body === undefined) {
    res.writeHead(answer.status, headOf(exchange, answer.headers)).end();
    return;
  }
  const contentType = answer.contentType ?? JSON_TYPE;
  const compressible = isCompressible(contentType);
  if (compressible) varyOn(exchange, 'Accept-Encoding');
  const head = headOf(exchange, answer.headers);
  // A validator for what a client may keep and ask about again: a read's successful answer.
  const cacheable = (exchange.method === 'GET' || exchange.method === 'HEAD') && answer.status >= 200 && answer.status < 300;
  const bytes = byteLengthOf(body);
  const tag = cacheable && !hasName(answer.headers, 'etag') ? weakEtag(body, bytes) : undefined;
  if (tag) head.push('ETag', tag);
  if (tag && isFresh(exchange, tag)) {
    res.writeHead(304, head).end();
    return;
  }
  head.push('Content-Type', contentType);
  const encoding = compressible && exchange.method !== 'HEAD' ? encodingFor(req.headers['accept-encoding'], bytes) : undefined;
  if (encoding) {
    const compressed = compressedBody(exchange, body, encoding, tag, answer.read === true);
    head.push('Content-Encoding', encoding, 'Content-Length', String(compressed.length));
    res.writeHead(answer.status, head).end(compressed);
    return;
  }
  head.push('Content-Length', String(bytes));
  // A string goes into the socket's buffer as it is: no Buffer of our own.
  res.writeHead(answer.status, head).end(body, 'utf8' as never);
}

/**
 * Writes the head of a streamed answer (no Content-Length: chunked) and hands back where its body
 * goes: the response, or a compression stream piped to it when the client accepts one.
 */
export function respondStream(exchange: Exchange, status: number, headers: Readonly<Record<string, string>>, contentType: string): Writable {
  const compressible = isCompressible(contentType);
  if (compressible) varyOn(exchange, 'Accept-Encoding');
  const head = headOf(exchange, headers);
  head.push('Content-Type', contentType);
  const encoding = compressible ? encodingFor(exchange.req.headers['accept-encoding'], Number.POSITIVE_INFINITY) : undefined;
  if (!encoding) {
    exchange.res.writeHead(status, head);
    return exchange.res;
  }
  head.push('Content-Encoding', encoding);
  exchange.res.writeHead(status, head);
  const stream = compressionStream(encoding);
  stream.pipe(exchange.res);
  return stream;
}

/**
 * The body compressed: a read's (a GET's tagged answer, or one marked `read`) once per body and encoding
 * while the app keeps compressed forms, any other answer every time.
 */
function compressedBody(exchange: Exchange, body: string | Buffer, encoding: Encoding, tag: string | undefined, read: boolean): Buffer {
  const kept = exchange.compressedAnswers;
  if (!kept || (!tag && !read)) return compressBody(body, encoding);
  return kept.compress(body, encoding, tag ?? weakEtag(body));
}

/** The request id, the gathered headers the answer does not set itself, then the answer's. */
function headOf(exchange: Exchange, own: Readonly<Record<string, string>> | undefined): string[] {
  const head: string[] = ['X-Request-Id', exchange.requestId];
  exchange.responseHeaders.forEach((value, name) => {
    if (!hasName(own, name)) head.push(name, value);
  });
  if (own) for (const name in own) head.push(name, own[name]!);
  return head;
}

/** Adds `name` to the Vary a step gathered before (CORS's `Origin`). */
function varyOn(exchange: Exchange, name: string): void {
  const prior = exchange.responseHeaders.get('vary');
  exchange.responseHeaders.set('Vary', prior === undefined ? name : `${prior}, ${name}`);
}

/** Whether `headers` holds `lowerName` in any spelling (HTTP header names are case-insensitive). */
function hasName(headers: Readonly<Record<string, unknown>> | undefined, lowerName: string): boolean {
  if (headers) for (const name in headers) if (name.toLowerCase() === lowerName) return true;
  return false;
}

/**
 * A conditional GET the client's copy still answers (If-None-Match, as browsers, CDNs and caches send
 * it). The request's `Cache-Control: no-cache` is left out: `fetch` adds it to every request a script
 * sets If-None-Match on, and it asks caches on the way to revalidate with the origin, which is this
 * answer; `fresh` alone would answer such a request in full.
 */
export function isFresh(exchange: Exchange, etag: string): boolean {
  const { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince } = exchange.req.headers;
  if (ifNoneMatch === undefined && ifModifiedSince === undefined) return false;
  return fresh({ 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince }, { etag } as OutgoingHttpHeaders);
}
