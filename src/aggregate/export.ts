/**
 * An aggregate exported whole (CSV, src/rest/csv-export.ts): the export asks for it before the request
 * is served, the resolver reads and checks the request as it always does (the same permissions, filter,
 * scope and parameter errors) and, instead of running a page, hands over the statement of every group,
 * which the export runs once behind a cursor. So an export is one aggregate statement however small
 * `limit` is, never one aggregate per page.
 *
 * The wish travels as `exportAggregate` on the REST request, which the context factory (src/app.ts)
 * copies onto the request's GraphQL context.
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

/** Where a request exported whole wants its aggregate's statement handed, instead of a page being run. */
export type AggregateExportReceiver = (plan: AggregateExport) => void;
