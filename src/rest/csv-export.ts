/**
 * CSV export of any list: `GET /api/<list>?format=csv` or `Accept: text/csv`, with the list's filters,
 * sort and `fields`. A list is read page after page, following `next_cursor` to the last page (the
 * changes feed with `since=` to its head); an aggregate's groups come from one statement behind a
 * cursor (src/aggregate/export.ts), never one aggregate per page. Rows are streamed as they come
 * (csv-stringify, with backpressure), so memory stays flat whatever the size. Cells: scalars as they
 * are, null empty, booleans `true`/`false`, nested arrays and objects as JSON text. `limit` is the size
 * of each list page fetched (default 500, which every list accepts); the export always runs to the end.
 * It is one request for authentication, the rate limit and usage however many pages it walks; one that
 * cannot finish is cut, logged and counted (docs/read-api.md).
 */
import { setImmediate } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { stringify } from 'csv-stringify';
import type { CancelSignal } from '../db/client.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../db/unavailable.ts';
import { cutShort } from '../http/access-log.ts';
import { dimensionKey } from '../aggregate/dimensions.ts';
import { exportAggregateOf, type AggregateExport } from '../aggregate/export.ts';
import { materialize } from '../compile/json-text.ts';
import { AppError, validationError } from '../errors.ts';
import { requestedFields } from './envelope.ts';
import type { RestHandler, RestResponse } from './handler.ts';
import type { QueryValue, RestRequest } from './request.ts';
import { isListBody, PageRefused, pagesOf, streamedGroups, type ListBody, type Row } from './csv-batches.ts';

/** Every list accepts this many rows a page (the smallest maximum is 500). */
const DEFAULT_PAGE_SIZE = '500';

/**
 * Whether the request asks for CSV; `format` is taken out of the query either way (it is the transport's
 * parameter, not the list's). Throws for a `format` other than csv or json.
 */
export function wantsCsv(req: Request, query: Record<string, QueryValue>): boolean {
  const format = query.format;
  delete query.format;
  if (format !== undefined) {
    if (format === 'csv') return true;
    if (format === 'json') return false;
    throw validationError([{ path: 'query.format', message: 'must be csv or json' }]);
  }
  // JSON first: `*/*` and browsers' Accept headers get JSON; only an explicit text/csv preference gets CSV.
  return req.get('accept') !== undefined && req.accepts(['application/json', 'text/csv']) === 'text/csv';
}

/** The export's file name: the list's last path segment, e.g. `entities.csv`. */
const fileName = (path: string): string => `${path.split('/').filter(Boolean).pop() ?? 'export'}.csv`;

/**
 * What the export leaves in `res.locals.csvExport` once its first row is on the way, for
 * `csv_exports_total` (src/http/metrics.ts), which reads it when the response closes: `failed` when a
 * page failed and the export cut the transfer; otherwise the outcome is `completed` if every byte was
 * sent and `client_gone` if the client left first.
 */
export type CsvExportState = 'streaming' | 'failed';

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

/**
 * Runs the list and streams it as CSV. Problems found before anything is sent are JSON errors: the
 * handler's own (a bad filter is the usual 400) go to `sendJson`, a request that is not a list throws
 * an AppError. The export is one request: the handler authenticates, rate-limits and counts it in its
 * first pass, and the following pages reuse that pass (handler.ts), so a key revoked meanwhile does not
 * stop an export already under way. After the first row a failure can only cut the download short: the
 * connection is destroyed before the terminating chunk, so no client can take the partial file for a
 * whole one, and a CsvExportError is thrown for the app's error handler to log (error level, request id).
 */
export async function sendCsvExport(
  request: RestRequest,
  res: Response,
  handle: RestHandler,
  sendJson: (response: RestResponse) => void,
): Promise<void> {
  if (request.method !== 'GET') throw notAList('CSV export is for GET requests of lists');
  // The first page as asked (a record route must not be handed a `limit` it does not take); the
  // following pages, by cursor, are large unless the client chose a size. The total, if asked for,
  // comes with the first page only; `offset` too (the cursor carries the position).
  const { offset: _offset, include_total: _includeTotal, ...base }: Record<string, QueryValue> = {
    ...request.query,
    limit: request.query.limit ?? DEFAULT_PAGE_SIZE,
  };
  // An aggregate is read and checked as for a page, and its statement of every group handed here.
  let plan: AggregateExport | undefined;
  exportAggregateOf(request.responseHeaders, (asked) => {
    plan = asked;
  });
  const response = await handle(request);
  // Rows are read as objects here (compiled reads hand over JSON text).
  const [body, init] = materialize(response);
  if (init.status !== 200) {
    sendJson(response);
    return;
  }
  if (!isListBody(body)) throw notAList(`${request.path} is not a list; CSV export is for lists`);
  // An aggregate's page alone would be a silently short file: its statement must have come here.
  if (body.query_info && !plan) throw new Error(`CSV export of ${request.path}: the aggregate handed over no statement`);

  // The client left (the socket closed before the end): nothing more to send, nobody to tell, no failure.
  const gone = (): boolean => res.destroyed || request.signal?.aborted === true;
  const progress = { rows: 0, pages: 1 };
  const batches = plan ? streamedGroups(plan) : pagesOf(request, handle, body, base, progress, gone);
  try {
    await writeCsv(request, res, init, body, batches, progress, gone, handle);
  } finally {
    // Closes an aggregate's cursor (and gives its connection back) however the export ended.
    await batches.return(undefined).catch(() => undefined);
  }
}

/**
 * Streams the batches as CSV. The first batch is read before anything is sent: its keys are the
 * columns, and an aggregate whose statement fails there (its timeout) is still answered in JSON.
 */
async function writeCsv(
  request: RestRequest,
  res: Response,
  init: RestResponse[1],
  body: ListBody,
  batches: AsyncGenerator<Row[]>,
  progress: { rows: number; pages: number },
  gone: () => boolean,
  handle: RestHandler,
): Promise<void> {
  res.set(init.headers);
  let first: IteratorResult<Row[]>;
  try {
    first = await batches.next();
  } catch (error) {
    if (gone()) return;
    throw isDatabaseUnavailable(error) ? databaseUnavailable(error) : error;
  }
  if (gone()) return;
  res.status(200).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${fileName(request.path)}"`,
  });
  res.removeHeader('Content-Length');
  const firstRow = first.done ? undefined : first.value[0];
  const csv = stringify({
    header: true,
    columns: firstRow ? Object.keys(firstRow) : body.query_info ? aggregateColumns(body.query_info) : emptyListColumns(request, handle),
    cast: { boolean: (value) => (value ? 'true' : 'false'), object: (value) => JSON.stringify(value) },
  });
  res.locals.csvExport = 'streaming' satisfies CsvExportState;
  // A stringifier error (none is expected for these rows) must not go unheard: the loop stops on it.
  let csvError: unknown;
  csv.on('error', (error) => {
    csvError = error;
  });
  csv.pipe(res);

  const stopped = (reason: string, details: { status?: number; code?: string; cause?: unknown } = {}): CsvExportError =>
    new CsvExportError(`CSV export of ${request.path} stopped after ${progress.rows} rows: page ${progress.pages} ${reason}`, progress.rows, progress.pages, details.status, details.code, {
      cause: details.cause,
    });

  try {
    for (let batch = first; !batch.done; batch = await batches.next()) {
      for (const row of batch.value) {
        if (gone() || csvError) break;
        progress.rows += 1;
        if (!csv.write(row)) await drained(csv, request.signal);
      }
      if (csvError) throw stopped(`failed: ${String(csvError)}`, { cause: csvError });
      if (gone()) break;
      // The embedded database answers through promises alone: without a turn of the event loop between
      // batches, an export would keep timers (the shutdown deadline), signals and other requests waiting.
      await setImmediate();
    }
  } catch (error) {
    if (!gone()) {
      // Headers are gone: destroy the connection before the terminating chunk, so the client cannot
      // take a partial file for a whole one; the metric reads the outcome, the app's error handler logs it.
      res.locals.csvExport = 'failed' satisfies CsvExportState;
      csv.unpipe(res);
      csv.destroy();
      cutShort(res);
      if (error instanceof CsvExportError) throw error;
      if (error instanceof PageRefused) throw stopped(error.message, { status: error.status, code: error.code });
      throw stopped(`failed: ${String(error)}`, { cause: error });
    }
  }
  if (gone()) csv.destroy();
  else csv.end();
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

/** No row to read the columns from: the record's fields, trimmed by `fields=` as the rows would be. */
function emptyListColumns(request: RestRequest, handle: RestHandler): string[] {
  const all = handle.recordFields(request);
  const names = requestedFields(request);
  const wanted = names ? new Set(['id', ...names]) : undefined;
  return all.filter((name) => !wanted || wanted.has(name));
}

const notAList = (message: string): AppError =>
  new AppError('VALIDATION_ERROR', message, { details: [{ path: 'query.format', message: 'only GET lists can be exported as CSV' }] });
