/**
 * An aggregate exported whole (CSV, src/rest/csv-export.ts): the export asks for it before the request
 * is served, the resolver reads and checks the request as it always does (the same permissions, filter,
 * scope and parameter errors) and, instead of running a page, hands over the statement of every group,
 * which the export runs once behind a cursor. So an export is one aggregate statement however small
 * `limit` is, never one aggregate per page.
 *
 * The request is known by its response header bag: the one object the REST request and its GraphQL
 * context share (src/app.ts builds the context from the request), so nothing new rides on either.
 */
import type { CancelSignal, SqlClient } from '../db/client.ts';

/** The statement of every group, one JSON text `row` each, with the client to stream it from. */
export interface AggregateExport {
  sql: string;
  params: unknown[];
  /** The request's read target: a replica's when reads go to replicas, else the primary's. */
  client: Pick<SqlClient, 'stream'>;
  signal?: CancelSignal | undefined;
}

const wanted = new WeakMap<object, (plan: AggregateExport) => void>();

/** Asks that the aggregate served for the request whose header bag is `key` be handed to `receive`, not run. */
export function exportAggregateOf(key: object, receive: (plan: AggregateExport) => void): void {
  wanted.set(key, receive);
}

/** The receiver waiting for this request's aggregate, taken (one aggregate per export); undefined for a page. */
export function takeExportReceiver(key: object): ((plan: AggregateExport) => void) | undefined {
  const receive = wanted.get(key);
  wanted.delete(key);
  return receive;
}
