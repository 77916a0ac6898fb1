/**
 * A signal that fires when the client leaves before its answer was sent (it closed the connection or
 * gave up), so work done only for that answer can stop: a compiled read cancels its statement
 * (src/db/client.ts, SqlClient.prepared) instead of holding a connection until the statement timeout.
 */
import type { ServerResponse } from 'node:http';
import { onRequestEnd } from './request-end.ts';

export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  onRequestEnd(res, () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
