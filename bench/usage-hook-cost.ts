/**
 * `npx tsx bench/usage-hook-cost.ts`: the CPU time usage counting adds to one request, measured in
 * isolation (the express hook, the in-memory increment and the /metrics counter), so it can be set
 * against a request's whole cost even on a machine too busy for `npm run bench:usage` to resolve a
 * few percent. The writes are left out on purpose (they are one batched statement per second, not
 * per request): the counter's SQL client here accepts and drops them.
 */
import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import type { Principal } from '../src/auth/principal.ts';
import { createLogger } from '../src/logger.ts';
import { countRequests } from '../src/http/count-requests.ts';
import { createUsageCounter } from '../src/usage/counter.ts';

const ITERATIONS = 1_000_000;
const counter = createUsageCounter({
  sql: { query: async () => [] },
  logger: createLogger({ level: 'silent' }),
  flushIntervalMs: 1_000,
  registry: new Registry(),
});
const hook = countRequests(counter);
const principal: Principal = { orgId: 'org', clientId: 'client', subject: 'client', kind: 'api-key', permissions: new Set() };

/** Nanoseconds per simulated response, with or without the hook installed. */
function perResponse(withHook: boolean): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i += 1) {
    const res = Object.assign(new EventEmitter(), { locals: { principal, endpoint: 'GET /api/entities/{id}' }, statusCode: 200 });
    if (withHook) hook({} as never, res as never, () => undefined);
    res.emit('finish');
  }
  return Number(process.hrtime.bigint() - started) / ITERATIONS;
}

for (let round = 1; round <= 3; round += 1) {
  const [on, off] = [perResponse(true), perResponse(false)];
  console.log(`round ${round}: counting adds ${(on - off).toFixed(0)} ns per request`);
}
await counter.close();
