/**
 * A signal that fires when the client leaves before its answer was sent (it closed the connection or
 * gave up), so work done only for that answer can stop: a compiled read cancels its statement
 * (src/db/client.ts, SqlClient.prepared) instead of holding a connection until the statement timeout.
 * Every request carries one and almost none fires: an AbortController (an EventTarget) per request
 * cost a measurable share of a small read, this costs an object.
 */
import type { ServerResponse } from 'node:http';
import type { CancelSignal } from '../db/client.ts';
import { onRequestEnd } from './request-end.ts';

class ClientGone implements CancelSignal {
  aborted = false;
  private listeners: (() => void)[] = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }

  abort(): void {
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

export function clientGone(res: ServerResponse): CancelSignal {
  const signal = new ClientGone();
  onRequestEnd(res, () => {
    if (!res.writableFinished) signal.abort();
  });
  return signal;
}
