/**
 * CSV export of any list: `GET /api/<list>?format=csv` or `Accept: text/csv`, with the list's filters,
 * sort and `fields`. The export runs the same handler page after page, following `next_cursor` until
 * the last page, and streams rows as they come (csv-stringify, with backpressure), so memory stays flat
 * whatever the size. Cells: scalars as they are, null empty, booleans `true`/`false`, nested arrays and
 * objects as JSON text. `limit` is the size of each page fetched (default 500, which every list accepts);
 * the export always runs to the end.
 */
import { once } from 'node:events';
import type { Request, Response } from 'express';
import { stringify } from 'csv-stringify';
import { materialize } from '../compile/json-text.ts';
import { AppError, validationError } from '../errors.ts';
import type { RestHandler, RestResponse } from './handler.ts';
import type { QueryValue, RestRequest } from './request.ts';

/** Every list accepts this many rows a page (the smallest maximum is 500). */
const DEFAULT_PAGE_SIZE = '500';

type Row = Record<string, unknown>;
interface ListBody {
  data: Row[];
  page: { next_cursor: string | null };
}

const isListBody = (body: unknown): body is ListBody =>
  typeof body === 'object' && body !== null && Array.isArray((body as ListBody).data) && typeof (body as ListBody).page === 'object';

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
 * Runs the list and streams it as CSV. Problems found before anything is sent are JSON errors: the
 * handler's own (a bad filter is the usual 400) go to `sendJson`, a request that is not a list throws
 * an AppError. After the first row an error can only cut the download short, which the client sees as
 * an incomplete transfer.
 */
export async function sendCsvExport(
  request: RestRequest,
  res: Response,
  handle: RestHandler,
  sendJson: (response: RestResponse) => void,
): Promise<void> {
  if (request.method !== 'GET') throw notAList('CSV export is for GET requests of lists');
  // The first page as asked (a record route must not be handed a `limit` it does not take); the
  // following pages, by cursor, are large unless the client chose a size.
  const base: Record<string, QueryValue> = { ...request.query, limit: request.query.limit ?? DEFAULT_PAGE_SIZE };
  const response = await handle(request);
  // Rows are read as objects here (compiled reads hand over JSON text).
  const [body, init] = materialize(response);
  if (init.status !== 200) {
    sendJson(response);
    return;
  }
  if (!isListBody(body)) throw notAList(`${request.path} is not a list; CSV export is for lists`);

  res.status(200).set(init.headers).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${fileName(request.path)}"`,
  });
  res.removeHeader('Content-Length');
  const first = body.data[0];
  const csv = stringify({
    header: true,
    columns: first ? Object.keys(first) : emptyListColumns(request, handle),
    cast: { boolean: (value) => (value ? 'true' : 'false'), object: (value) => JSON.stringify(value) },
  });
  csv.pipe(res);

  let page: ListBody = body;
  for (;;) {
    for (const row of page.data) {
      if (res.destroyed) {
        csv.destroy();
        return;
      }
      if (!csv.write(row)) await once(csv, 'drain');
    }
    const cursor = page.page.next_cursor;
    if (!cursor || res.destroyed) break;
    // The same request object, so authentication (cached per request) and its rate-limit charge happen once.
    const { offset: _offset, ...rest } = base;
    request.query = { ...rest, cursor };
    const [next, nextInit] = await handle(request);
    if (nextInit.status !== 200 || !isListBody(next)) {
      // Headers are gone: cut the transfer so the client cannot take a partial file for a whole one.
      csv.unpipe(res);
      res.destroy(new Error(`CSV export stopped: page answered ${nextInit.status}`));
      return;
    }
    page = materialize(next);
  }
  csv.end();
}

/** No row to read the columns from: the record's fields, trimmed by `fields=` as the rows would be. */
function emptyListColumns(request: RestRequest, handle: RestHandler): string[] {
  const all = handle.recordFields(request);
  const wanted = typeof request.query.fields === 'string' ? new Set(['id', ...request.query.fields.split(',').map((name) => name.trim())]) : undefined;
  return all.filter((name) => !wanted || wanted.has(name));
}

const notAList = (message: string): AppError =>
  new AppError('VALIDATION_ERROR', message, { details: [{ path: 'query.format', message: 'only GET lists can be exported as CSV' }] });
