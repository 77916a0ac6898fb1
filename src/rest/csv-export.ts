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
import type { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { stringify, type Stringifier } from 'csv-stringify';
import type { CancelSignal } from '../db/client.ts';
import { databaseUnavailable, isDatabaseUnavailable } from '../db/unavailable.ts';
import { dimensionKey } from '../aggregate/dimensions.ts';
import type { AggregateExport } from '../aggregate/export.ts';
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

/** Why an export stopped before its last row; the pipeline logs it once the transfer is cut. */
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
  /** The CSV text, row by row as the batches are read. */
  stream: Readable;
  /**
   * Resolves when the last row is in `stream` (or the client left); rejects with a CsvExportError when
   * a batch failed after the first row, when the transfer can only be cut short (the writer does it).
   */
  finished: Promise<void>;
}

/**
 * Runs the list and hands back its CSV as a stream. Problems found before anything is sent are JSON
 * answers: the handler's own (a bad filter is the usual 400) come back as its response, a request that
 * is not a list throws an AppError, and so does an aggregate whose statement fails on its first batch
 * (its timeout). The export is one request: the handler authenticates, rate-limits and counts it in
 * its first pass, and the following pages reuse that pass (handler.ts), so a key revoked meanwhile
 * does not stop an export already under way.
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
  // An aggregate is read and checked as for a page, and its statement of every group handed here.
  let plan: AggregateExport | undefined;
  request.exportAggregate = (asked) => {
    plan = asked;
  };
  const response = await handle(request);
  // Rows are read as objects here (compiled reads hand over JSON text).
  const [body, init] = materialize(response);
  if (init.status !== 200) return response;
  if (!isListBody(body)) throw notAList(`${request.path} is not a list; CSV export is for lists`);
  // An aggregate's page alone would be a silently short file: its statement must have come here.
  if (body.query_info && !plan) throw new Error(`CSV export of ${request.path}: the aggregate handed over no statement`);

  // The client left (the socket closed before the end): nothing more to send, nobody to tell, no failure.
  const gone = (): boolean => request.signal?.aborted === true;
  const progress = { rows: 0, pages: 1 };
  const batches = plan ? streamedGroups(plan) : pagesOf(request, handle, body, base, progress, gone);
  // The first batch is read before anything is sent: its keys are the columns.
  let first: IteratorResult<Row[]>;
  try {
    first = await batches.next();
  } catch (error) {
    await batches.return(undefined).catch(() => undefined);
    throw isDatabaseUnavailable(error) ? databaseUnavailable(error) : error;
  }
  const firstRow = first.done ? undefined : first.value[0];
  const csv = stringify({
    header: true,
    columns: firstRow ? Object.keys(firstRow) : body.query_info ? aggregateColumns(body.query_info) : emptyListColumns(request, handle),
    cast: { boolean: (value) => (value ? 'true' : 'false'), object: (value) => JSON.stringify(value) },
  });
  // Closes an aggregate's cursor (and gives its connection back) however the export ends.
  const finished = writeRows(request.path, csv, first, batches, progress, gone, request.signal).finally(() =>
    batches.return(undefined).catch(() => undefined),
  );
  return {
    status: 200,
    headers: { ...init.headers, 'Content-Disposition': `attachment; filename="${fileName(request.path)}"` },
    contentType: 'text/csv; charset=utf-8',
    stream: csv,
    finished,
  };
}

/** Writes every batch's rows into `csv`, then ends it; stops early, without failing, when the client leaves. */
async function writeRows(
  path: string,
  csv: Stringifier,
  first: IteratorResult<Row[]>,
  batches: AsyncGenerator<Row[]>,
  progress: { rows: number; pages: number },
  gone: () => boolean,
  signal: CancelSignal | undefined,
): Promise<void> {
  // A stringifier error (none is expected for these rows) must not go unheard: the loop stops on it.
  let csvError: unknown;
  csv.on('error', (error) => {
    csvError = error;
  });
  const stopped = (reason: string, details: { status?: number; code?: string; cause?: unknown } = {}): CsvExportError =>
    new CsvExportError(`CSV export of ${path} stopped after ${progress.rows} rows: page ${progress.pages} ${reason}`, progress.rows, progress.pages, details.status, details.code, {
      cause: details.cause,
    });
  try {
    for (let batch = first; !batch.done; batch = await batches.next()) {
      for (const row of batch.value) {
        if (gone() || csvError) break;
        progress.rows += 1;
        if (!csv.write(row)) await drained(csv, signal);
      }
      if (csvError) throw stopped(`failed: ${String(csvError)}`, { cause: csvError });
      if (gone()) break;
      // The embedded database answers through promises alone: without a turn of the event loop between
      // batches, an export would keep timers (the shutdown deadline), signals and other requests waiting.
      await setImmediate();
    }
  } catch (error) {
    if (!gone()) {
      csv.destroy();
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
