/**
 * Where a CSV export's rows come from (src/rest/csv-export.ts), a batch at a time: a list's pages
 * through the handler, the changes feed to its head, or an aggregate's groups from its one statement.
 */
import type { AggregateExport } from '../aggregate/export.ts';
import { materialize } from '../compile/json-text.ts';
import type { RestHandler } from './handler.ts';
import type { QueryValue, RestRequest } from './request.ts';
import { routes } from './routes.ts';

export type Row = Record<string, unknown>;
export interface ListBody {
  data: Row[];
  page: { next_cursor?: string | null; limit?: number; offset?: number; total?: number };
  /** An aggregate's: what it groups by and measures (its columns when it has no group). */
  query_info?: { group_by: string[]; metrics: { label: string }[] };
}

/** The feeds' paths (none takes a path parameter): they continue with `since=`, to the head. */
const FEED_PATHS = new Set(routes.filter((route) => route.kind === 'feed').map((route) => route.path));

export const isListBody = (body: unknown): body is ListBody =>
  typeof body === 'object' && body !== null && Array.isArray((body as ListBody).data) && typeof (body as ListBody).page === 'object';

/** A following page answered with an error. */
export class PageRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * A list's pages, the first one (already read) included: the same request object each time, so the
 * handler reuses its first pass (no new authentication or charge).
 */
export async function* pagesOf(
  request: RestRequest,
  handle: RestHandler,
  first: ListBody,
  base: Record<string, QueryValue>,
  progress: { pages: number },
  gone: () => boolean,
): AsyncGenerator<Row[]> {
  const feed = FEED_PATHS.has(request.path);
  for (let page = first; ; ) {
    yield page.data;
    const following = nextPage(page, base, feed);
    if (!following || gone()) return;
    request.query = following;
    progress.pages += 1;
    const [next, nextInit] = materialize(await handle(request));
    // A page cut short because the client left (its statement cancelled) is not the export's failure.
    if (gone()) return;
    if (nextInit.status !== 200 || !isListBody(next)) {
      const { code, message } = errorOf(next);
      throw new PageRefused(`answered ${nextInit.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`, nextInit.status, code);
    }
    page = next;
  }
}

/** An aggregate's groups from its one statement, a batch at a time (each row the group's JSON). */
export async function* streamedGroups(plan: AggregateExport): AsyncGenerator<Row[]> {
  for await (const batch of plan.client.stream<{ row: string }>(plan.sql, plan.params, plan.signal)) {
    yield batch.map(({ row }) => JSON.parse(row) as Row);
  }
}

/**
 * The query of the page after `page`: the list's next cursor; for a feed, whose cursor is always
 * there, `since` while pages come full (a short one reached the head).
 */
function nextPage(page: ListBody, base: Record<string, QueryValue>, feed: boolean): Record<string, QueryValue> | undefined {
  const cursor = page.page.next_cursor;
  if (!cursor) return undefined;
  if (!feed) return { ...base, cursor };
  return page.data.length > 0 && page.data.length >= (page.page.limit ?? Infinity) ? { ...base, since: cursor } : undefined;
}

/** The error envelope's code and message, when a page answered one. */
function errorOf(body: unknown): { code?: string; message?: string } {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    code: typeof error?.code === 'string' ? error.code : undefined,
    message: typeof error?.message === 'string' ? error.message : undefined,
  };
}
