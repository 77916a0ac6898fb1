/**
 * The REST list read as an export's creator, without a token: the request carries its authentication
 * already made (the principal stored with the export), so the handler runs the list's own operation,
 * checks and compiled statement, and nothing is counted against the rate limit or usage as a request.
 * Its records may be JsonText (src/compile/json-text.ts): whoever needs objects materializes them.
 */
import type { Principal } from '../auth/principal.ts';
import { HeaderBag } from '../header-bag.ts';
import type { RestHandler } from '../rest/handler.ts';
import type { RestRequest } from '../rest/request.ts';
import type { ReadList } from './create.ts';

export function listReader(handler: () => RestHandler): ReadList {
  return async (principal: Principal, path: string, query: Record<string, string>) => {
    const request: RestRequest & { authentication: Promise<{ principal: Principal }> } = {
      method: 'GET',
      path,
      query: { ...query },
      body: undefined,
      requestId: 'export',
      header: () => undefined,
      responseHeaders: new HeaderBag(),
      authentication: Promise.resolve({ principal }),
    };
    // The records stay the JSON text PostgreSQL wrote: an NDJSON line is that text, and a Parquet
    // file's thread parses it; only CSV needs them as objects here.
    const [body, init] = await handler()(request);
    return { status: init.status, body };
  };
}
