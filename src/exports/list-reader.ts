/**
 * The REST list read as an export's creator, without a token: the request carries its authentication
 * already made (the principal stored with the export), so the handler runs the list's own operation,
 * checks and compiled statement, and nothing is counted against the rate limit or usage as a request.
 */
import type { Principal } from '../auth/principal.ts';
import { materialize } from '../compile/json-text.ts';
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
    const [body, init] = materialize(await handler()(request));
    return { status: init.status, body };
  };
}
