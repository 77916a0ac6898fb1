/**
 * CSV export of any list: `GET /api/<list>?format=csv` or `Accept: text/csv`, with the list's filters,
 * sort and `fields`. The export runs the same handler page after page, following `next_cursor` until
 * the last page (an aggregate's groups, which have no cursor, by offset up to `page.total`), and streams rows as they come (csv-stringify, with backpressure), so memory stays flat
 * whatever the size. Cells: scalars as they are, null empty, booleans `true`/`false`, nested arrays and
 * objects as JSON text. `limit` is the size of each page fetched (default 500, which every list accepts);
 * the export always runs to the end. It is one request for authentication, the rate limit and usage
 * however many pages it walks; one that cannot finish is cut, logged and counted (docs/read-api.md).
 */
import type { Readable } from 'node:stream';
import { stringify, type Stringifier } from 'csv-stringify';
import type { CancelSignal } from '../db/client.ts';
import { dimensionKey } from '../aggregate/dimensions.ts';
import { materialize } from '../compile/json-text.ts';
import { AppError, validationError } from '../errors.ts';
import { requestedFields } from './envelope.ts';
import type { RestHandler, RestResponse } from './handler.ts';
import type { QueryValue, RestRequest } from './request.ts';

/** Every list accepts this many rows a page (the smallest maximum is 500). */
const DEFAULT_PAGE_SIZE = '500';

type Row = Record<string, unknown>;
interface ListBody {
  data: Row[];
  page: { next_cursor?: string | null; limit?: number; offset?: number; total?: number };
  /** An aggregate's: its groups are paged by offset. */
  query_info?: { group_by: string[]; metrics: { label: string }[] };
}

const isListBody = (body: unknown): body is ListBody =>
  typeof body === 'object' && body !== null && Array.isArray((body as ListBody).data) && typeof (body as ListBody).page === 'object';

/**
 * Whether the request asks for CSV; `format` is taken out of the query either way (it is the transport's
 * parameter, not the list's). Throws for a `format` other than csv or json. `prefersCsv`: the Accept
 * header's choice between JSON and CSV.
 */
export function wantsCsv(query: Record<string, QueryValue>, prefersCsv: () => boolean): boolean {
  const format = query.format;
  delete query.format;
  if (format !== undefined) {
    if (format === 'csv') return true;
    if (format === 'json') return false;
    throw validationError([{ path: 'query.format', message: 'must be csv or json' }]);
  }
  return prefersCsv();
}

/** The export's file name: the list's last path segment, e.g. `entities.csv`. */
const fileName = (path: string): string => `${path.split('/').filter(Boolean).pop() ?? 'export'}.csv`;

/** Why an export stopped before its last row; thrown after the transfer is cut, so the app's error handler logs it. */
export class CsvExportError extends Error {
  override readonly name = 'CsvExportError';
  constructor(
    message: string,
    readonly rows: number,
    readonly pages: number,
    readonly status?: number,
    readonly code?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** An export under way: the writer sends `stream` as the body and learns from `finished` how it ended. */
export interface CsvExport {
  status: 200;
  headers: Record<string, string>;
  contentType: string;
  /** The CSV text, row by row as the pages are read (csv-stringify, with backpressure). */
  stream: Readable;
  /**
   * Resolves when the last row is in `stream` (or the client left); rejects with a CsvExportError when
   * a page failed after the first row, when the transfer can only be cut short (the writer does it).
   */
  finished: Promise<void>;
}

/**
 * Runs the list and hands back its CSV as a stream. Problems found before anything is sent are JSON
 * answers: the handler's own (a bad filter is the usual 400) come back as its response, a request that
 * is not a list throws an AppError. The export is one request: the handler authenticates, rate-limits
 * and counts it in its first pass, and the following pages reuse that pass (handler.ts), so a key
 * revoked meanwhile does not stop an export already under way. After the first row a failure can only
 * cut the download short: the writer destroys the connection before the terminating chunk, so no
 * client can take the partial file for a whole one, and logs the CsvExportError (error level, request id).
 */
export async function exportCsv(request: RestRequest, handle: RestHandler): Promise<RestResponse | CsvExport> {
  if (request.method !== 'GET') throw notAList('CSV export is for GET requests of lists');
  // The first page as asked (a record route must not be handed a `limit` it does not take); the
  // following pages, by cursor, are large unless the client chose a size. The total, if asked for,
  // comes with the first page only; `offset` too (the cursor carries the position).
  const { offset: _offset, include_total: _includeTotal, ...base }: Record<string, QueryValue> = {
    ...request.query,
    limit: request.query.limit ?? DEFAULT_PAGE_SIZE,
  };
  const response = await handle(request);
  // Rows are read as objects here (compiled reads hand over JSON text).
  const [body, init] = materialize(response);
  if (init.status !== 200) return response;
  if (!isListBody(body)) throw notAList(`${request.path} is not a list; CSV export is for lists`);

  const first = body.data[0];
  const csv = stringify({
    header: true,
    columns: first ? Object.keys(first) : body.query_info ? aggregateColumns(body.query_info) : emptyListColumns(request, handle),
    cast: { boolean: (value) => (value ? 'true' : 'false'), object: (value) => JSON.stringify(value) },
  });
  return {
    status: 200,
    headers: { ...init.headers, 'Content-Disposition': `attachment; filename="${fileName(request.path)}"` },
    contentType: 'text/csv; charset=utf-8',
    stream: csv,
    finished: writeRows(request, handle, csv, body, base),
  };
}

/** Writes every page's rows into `csv`, then ends it; stops early, without failing, when the client leaves. */
async function writeRows(request: RestRequest, handle: RestHandler, csv: Stringifier, body: ListBody, base: Record<string, QueryValue>): Promise<void> {
  // A stringifier error (none is expected for these rows) must not go unheard: the loop stops on it.
  let csvError: unknown;
  csv.on('error', (error) => {
    csvError = error;
  });
  // The client left (the socket closed before the end): nothing more to send, nobody to tell, no failure.
  const gone = (): boolean => request.signal?.aborted === true;
  let rows = 0;
  let pages = 1;
  const stopped = (reason: string, details: { status?: number; code?: string; cause?: unknown } = {}): CsvExportError =>
    new CsvExportError(`CSV export of ${request.path} stopped after ${rows} rows: page ${pages} ${reason}`, rows, pages, details.status, details.code, {
      cause: details.cause,
    });

  try {
    let page: ListBody = body;
    for (;;) {
      for (const row of page.data) {
        if (gone() || csvError) break;
        rows += 1;
        if (!csv.write(row)) await drained(csv, request.signal);
      }
      if (csvError) throw stopped(`failed: ${String(csvError)}`, { cause: csvError });
      const following = nextPage(page, base);
      if (!following || gone()) break;
      // The same request object: the handler reuses its first pass (no new authentication or charge).
      request.query = following;
      pages += 1;
      const [next, nextInit] = materialize(await handle(request));
      // A page cut short because the client left (its statement cancelled) is not the export's failure.
      if (gone()) break;
      if (nextInit.status !== 200 || !isListBody(next)) {
        const { code, message } = errorOf(next);
        throw stopped(`answered ${nextInit.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`, { status: nextInit.status, code });
      }
      page = next;
    }
  } catch (error) {
    if (!gone()) {
      csv.destroy();
      throw error instanceof CsvExportError ? error : stopped(`failed: ${String(error)}`, { cause: error });
    }
  }
  if (gone()) csv.destroy();
  else csv.end();
}

/** The query of the page after `page`: the list's next cursor, or an aggregate's next offset while groups remain. */
function nextPage(page: ListBody, base: Record<string, QueryValue>): Record<string, QueryValue> | undefined {
  if (page.query_info) {
    const { offset = 0, limit = 0, total = 0 } = page.page;
    return offset + limit < total && page.data.length ? { ...base, offset: String(offset + limit) } : undefined;
  }
  return page.page.next_cursor ? { ...base, cursor: page.page.next_cursor } : undefined;
}

/** An aggregate without groups: its dimension keys and metric labels. */
const aggregateColumns = (info: NonNullable<ListBody['query_info']>): string[] => [
  ...info.group_by.map(dimensionKey),
  ...info.metrics.map((metric) => metric.label),
];

/** Waits for the stringifier to drain, or for the client to leave (then the caller sees `gone()`). */
function drained(csv: NodeJS.EventEmitter, signal: CancelSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stopListening = () => {
      csv.off('drain', onDrain);
      csv.off('error', onError);
      signal?.removeEventListener('abort', onDrain);
    };
    const onDrain = () => {
      stopListening();
      resolve();
    };
    const onError = (error: unknown) => {
      stopListening();
      reject(error);
    };
    csv.once('drain', onDrain);
    csv.once('error', onError);
    signal?.addEventListener('abort', onDrain);
  });
}

/** The error envelope's code and message, when a page answered one. */
function errorOf(body: unknown): { code?: string; message?: string } {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    code: typeof error?.code === 'string' ? error.code : undefined,
    message: typeof error?.message === 'string' ? error.message : undefined,
  };
}

/** No row to read the columns from: the record's fields, trimmed by `fields=` as the rows would be. */
function emptyListColumns(request: RestRequest, handle: RestHandler): string[] {
  const all = handle.recordFields(request);
  const names = requestedFields(request);
  const wanted = names ? new Set(['id', ...names]) : undefined;
  return all.filter((name) => !wanted || wanted.has(name));
}

const notAList = (message: string): AppError =>
  new AppError('VALIDATION_ERROR', message, { details: [{ path: 'query.format', message: 'only GET lists can be exported as CSV' }] });
