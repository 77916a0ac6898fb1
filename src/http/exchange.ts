/**
 * One HTTP request and what the pipeline learns while serving it: the typed state every step reads and
 * writes (src/http/front.ts), instead of a bag of casts on the response. A class, so its methods live
 * once on the prototype: per-request closures and accessor literals kept what a request touched alive
 * past young-generation collections (docs/request-pipeline.md, "Garbage").
 *
 * It is also what the transports read: the REST handler's request (src/rest/request.ts) and the fields
 * GraphQL's transport context takes from HTTP (src/graphql/transport.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { AggregateExportReceiver } from '../aggregate/export.ts';
import type { Authentication } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { CancelSignal } from '../db/client.ts';
import { HeaderBag } from '../header-bag.ts';
import type { CompressedAnswers } from './compressed-answers.ts';

export type QueryValue = string | string[] | undefined;

/** What a CSV export has done once its first row is on the way (csv_exports_total reads it at the end). */
export type CsvExportState = 'streaming' | 'failed';

/** What the logs and metrics call a request whose client left before the response was complete (nginx's code). */
export const CLIENT_CLOSED_REQUEST = 499;

/** What they call a response the server cut short after its head went out (a stream that failed). */
const RESPONSE_CUT_SHORT = 500;

/** Incoming ids are echoed only when they look like ids, so a header cannot inject into logs. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const EXCHANGE = Symbol('the request\'s exchange');

/** The exchange of a request handed to express (src/http/site.ts), for its handlers' answers. */
export const exchangeOf = (req: IncomingMessage): Exchange => (req as { [EXCHANGE]?: Exchange })[EXCHANGE]!;

export class Exchange {
  readonly method: string;
  /** The URL's path, undecoded, without the query. */
  readonly path: string;
  /** The client's X-Request-Id when it looks like one, else a new UUID; sent back on every answer. */
  readonly requestId: string;
  readonly started = performance.now();
  /** Headers gathered while serving (CORS, RateLimit-*, Deprecation), written with the answer; the answer's own win. */
  readonly responseHeaders = new HeaderBag();
  /** The parsed JSON body, for routes that read one. */
  body: unknown = undefined;
  /** Set once a route matches: its template, e.g. `GET /api/entities/{id}` (metrics and usage name the request by it). */
  endpoint: string | undefined = undefined;
  /** Who is calling, as soon as the token is verified: usage charges even a refusal after that to them. */
  principal: Principal | undefined = undefined;
  /** An MCP tool call that failed while its HTTP answer is 200: the status of the failed read (usage counts an error). */
  toolStatus: number | undefined = undefined;
  csvExport: CsvExportState | undefined = undefined;
  /** The server cut the answer short after its head went out (a stream that failed): a 500 to logs and metrics. */
  cutShort = false;
  /** A CSV export of an aggregate: where the aggregate hands its statement (src/aggregate/export.ts). */
  exportAggregate: AggregateExportReceiver | undefined = undefined;
  /** The request's authentication, once begun: every hand that serves the request reuses it (charged once). */
  authentication: Promise<Authentication> | undefined = undefined;
  private readonly rawQuery: string;
  private parsedQuery: Record<string, QueryValue> | undefined = undefined;
  private gone: ClientGone | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** The app's kept compressed answers, which the writer uses for reads (none when COMPRESSION_CACHE_MB is 0). */
    readonly compressedAnswers?: CompressedAnswers,
  ) {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    this.method = req.method ?? 'GET';
    this.path = queryAt === -1 ? url : url.slice(0, queryAt);
    this.rawQuery = queryAt === -1 ? '' : url.slice(queryAt + 1);
    const incoming = req.headers['x-request-id'];
    this.requestId = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  }

  /** The query string's parameters (a repeated one as an array), parsed on first use; a copy callers may change. */
  get query(): Record<string, QueryValue> {
    return (this.parsedQuery ??= this.rawQuery === '' ? {} : { ...parseQuery(this.rawQuery) });
  }

  set query(query: Record<string, QueryValue>) {
    this.parsedQuery = query;
  }

  /** Hands the request to a handler outside the pipeline (express), which finds this with `exchangeOf`. */
  handOver(): void {
    (this.req as { [EXCHANGE]?: Exchange })[EXCHANGE] = this;
    this.res.setHeader('X-Request-Id', this.requestId);
    this.responseHeaders.forEach((value, name) => this.res.setHeader(name, value));
  }

  /** A request header (case-insensitive; Referer and Referrer are one), repeated ones joined. */
  header(name: string): string | undefined {
    const lower = name.toLowerCase();
    const value = this.req.headers[lower === 'referrer' ? 'referer' : lower];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  onIdentified(principal: Principal): void {
    this.principal = principal;
  }

  /** Fires when the client leaves before its answer was sent, so a read made only for it can stop. */
  get signal(): CancelSignal {
    if (!this.gone) {
      this.gone = new ClientGone();
      if (this.res.closed && !this.res.writableFinished) this.gone.abort();
    }
    return this.gone;
  }

  /** The status the request ended with: its own, 500 when the server cut it short, 499 when the client left first. */
  finalStatus(): number {
    return this.res.writableFinished ? this.res.statusCode : this.cutShort ? RESPONSE_CUT_SHORT : CLIENT_CLOSED_REQUEST;
  }

  /**
   * Ends an answer whose head is gone by destroying its connection, so the client sees an incomplete
   * transfer rather than a whole one, and the logs and metrics see the server's failure, not the client's.
   */
  cut(): void {
    this.cutShort = true;
    this.res.destroy();
  }

  /** Told by the pipeline when the response closes: the signal fires if the answer was not complete. */
  closed(): void {
    if (this.gone && !this.res.writableFinished) this.gone.abort();
  }
}

/** A signal per request that almost never fires: an object, not an AbortController and an EventTarget. */
class ClientGone implements CancelSignal {
  aborted = false;
  private listeners: (() => void)[] = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }

  abort(): void {
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
