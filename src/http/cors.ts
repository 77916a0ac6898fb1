/**
 * CORS for browser front ends on other origins (the `cors` middleware). Off unless CORS_ORIGINS lists
 * origins: a self-hosted API holding an organisation's data should not answer every web page's
 * scripts by default. Tokens travel in the Authorization header, never in cookies, so credentials
 * mode stays off; preflights are answered here (204) before any route could refuse OPTIONS.
 */
import type { ServerResponse } from 'node:http';
import cors from 'cors';
import type { Step } from './front.ts';

/** Response headers a browser script may read: paging through rate limits, ids for support, deprecations. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Deprecation',
  'WWW-Authenticate',
  'Content-Disposition',
];

/** Browsers may cache a preflight's answer this long (seconds); Chromium caps it at 7200. */
const PREFLIGHT_MAX_AGE = 600;

/** The pipeline's CORS step for CORS_ORIGINS, or undefined when the list is empty (CORS off). */
export function corsStep(origins: readonly string[]): Step | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  const policy = cors({
    // `*` allows any origin; otherwise only listed origins get the headers (others get none, and the
    // browser blocks the response). Vary: Origin is set either way, for caches.
    origin: allowed.has('*') ? '*' : (origin, done) => done(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Client-Id', 'X-Request-Id', 'Accept'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
  });
  return (exchange) => {
    let passed = false;
    const next = () => {
      passed = true;
    };
    // The origin check above answers at once, so the policy has decided when it returns.
    if (exchange.method === 'OPTIONS') {
      // A preflight is answered by the policy itself, with the request id as every answer.
      exchange.res.setHeader('X-Request-Id', exchange.requestId);
      policy(exchange.req, exchange.res, next);
    } else {
      // Any other request's CORS headers join the ones the writer sends with the answer.
      policy(exchange.req, exchange.responseHeaders as unknown as ServerResponse, next);
    }
    return passed;
  };
}
