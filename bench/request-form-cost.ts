/**
 * `npx tsx bench/request-form-cost.ts`: what settling a request's form costs the commonest request, an
 * origin-form GET with one Host among six headers (src/http/request-form.ts, step 0 of every request):
 * nanoseconds per call over two million calls, five rounds. bench:overhead's CPU per request (tens of
 * microseconds, moving by more than that between runs on a shared machine) cannot show a cost this
 * size; this shows it alone.
 */
import type { IncomingMessage } from 'node:http';
import { settleRequestForm } from '../src/http/request-form.ts';

const rawHeaders = ['Host', '127.0.0.1:4833', 'Authorization', `Bearer ${'x'.repeat(300)}`, 'X-Client-Id', 'bench-admin', 'User-Agent', 'autocannon/7', 'Accept', 'application/json', 'Connection', 'keep-alive'];
const request = { rawHeaders, url: '/api/entities/1', method: 'GET', httpVersion: '1.1', headers: {} } as unknown as IncomingMessage;
const CALLS = 2_000_000;

const rounds: string[] = [];
for (let round = 0; round < 5; round += 1) {
  const started = process.hrtime.bigint();
  for (let call = 0; call < CALLS; call += 1) if (settleRequestForm(request)) throw new Error('an origin-form GET was refused');
  rounds.push((Number(process.hrtime.bigint() - started) / CALLS).toFixed(1));
}
console.log(`ns per origin-form GET with 6 headers, 5 rounds of ${CALLS}: ${rounds.join('  ')}`);
