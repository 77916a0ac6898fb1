/**
 * What runs when a request ends. Metrics, usage counting, the access log and the client-gone signal all
 * act then; each listening to the response's 'close' on its own cost an emitter registration and a
 * closure per request each, a measurable share of a small read. They share ONE 'close' listener here,
 * and run in the order they were added. 'close' also fires when the client leaves first.
 */
import type { ServerResponse } from 'node:http';

const ENDED = Symbol('request end handlers');

type Ending = ServerResponse & { [ENDED]?: (() => void)[] };

export function onRequestEnd(res: ServerResponse, handler: () => void): void {
  const ending = res as Ending;
  const handlers = ending[ENDED];
  if (handlers) {
    handlers.push(handler);
    return;
  }
  const first = [handler];
  ending[ENDED] = first;
  // 'close' comes once per response: `on` spares the wrapper and the removal `once` makes.
  res.on('close', () => {
    for (const run of first) run();
  });
}
