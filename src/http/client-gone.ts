/**
 * A signal that fires when the client leaves before its answer was sent (it closed the connection or
 * gave up), so work done only for that answer can stop: a compiled read cancels its statement
 * (src/db/client.ts, SqlClient.prepared) instead of holding a connection until the statement timeout.
 */
import type { Response } from 'express';

export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
