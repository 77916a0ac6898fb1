/**
 * `/api/*` on the pipeline: the body step (JSON only, within the body limits) when the request carries
 * one, then the pure REST handler (src/rest/handler.ts) and the one writer; a CSV export streams its
 * rows instead (src/rest/csv-export.ts). The handler answers every error of the request itself; the
 * pipeline answers the body step's and logs a failure after the head went out.
 */
import Negotiator from 'negotiator';
import { exportCsv, wantsCsv, type CsvExport } from '../rest/csv-export.ts';
import type { RestHandler } from '../rest/handler.ts';
import type { SqlClient } from '../db/client.ts';
import { EXPORT_FILE_PATH, serveExportFile } from './export-files.ts';
import type { Exchange } from './exchange.ts';
import type { Route } from './front.ts';
import { bodyReader, hasBody } from './read-body.ts';
import { jsonAnswer, respond, respondStream } from './respond.ts';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const MAY_PREFER_CSV = /csv|text\//i;

export function restRoute(handle: RestHandler, exportFiles?: { sql: SqlClient }): Route {
  const readBody = bodyReader({ strict: false, what: 'The request', jsonOnly: (exchange) => BODY_METHODS.has(exchange.method) && hasBody(exchange) });
  const serve = async (exchange: Exchange): Promise<void> => {
    // An export's file is bytes from the database, not an operation's answer (src/http/export-files.ts).
    const file = exportFiles ? EXPORT_FILE_PATH.exec(exchange.path) : null;
    if (file) return serveExportFile(exchange, handle, exportFiles!.sql, file);
    // A request without a body (every read) has nothing to wait for.
    if (hasBody(exchange)) await readBody(exchange);
    if (wantsCsv(exchange.query, () => prefersCsv(exchange.req.headers.accept))) {
      const answer = await exportCsv(exchange, handle);
      if (Array.isArray(answer)) respond(exchange, jsonAnswer(...answer));
      else await streamCsv(exchange, answer);
      return;
    }
    const [body, init] = await handle(exchange);
    respond(exchange, jsonAnswer(body, init));
  };
  return { serve };
}

/**
 * Whether an Accept header prefers CSV to JSON. JSON first: a wildcard and browsers' Accept headers get JSON;
 * only an explicit text/csv preference (or a text range) gets CSV. An Accept naming neither CSV nor a
 * text range cannot prefer it, so it is not negotiated.
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (accept === undefined || !MAY_PREFER_CSV.test(accept)) return false;
  return new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/csv']) === 'text/csv';
}

/**
 * Sends an export's rows as they come. A failure after the head went out can only cut the transfer:
 * the connection is destroyed before the terminating chunk, so the client cannot take a partial file
 * for a whole one; csv_exports_total and the error line say what happened.
 */
async function streamCsv(exchange: Exchange, csv: CsvExport): Promise<void> {
  exchange.csvExport = 'streaming';
  const destination = respondStream(exchange, csv.status, csv.headers, csv.contentType);
  csv.stream.pipe(destination);
  try {
    await csv.finished;
  } catch (error) {
    exchange.csvExport = 'failed';
    csv.stream.unpipe(destination);
    exchange.cut();
    // A CsvExportError (how many rows went out, which page failed how), for the pipeline to log.
    throw error;
  }
}
