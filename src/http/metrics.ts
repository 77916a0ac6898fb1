/**
 * `/metrics` in Prometheus text (prom-client): process metrics, one histogram of request durations
 * by endpoint and status, and the outcomes of CSV exports. An endpoint is the method and route template
 * (`GET /api/entities/{id}`), never a raw path, so the number of series stays bounded whatever clients send.
 */
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry, type CounterConfiguration } from 'prom-client';
import type { CsvExportState } from '../rest/csv-export.ts';
import { finalStatus } from './access-log.ts';
import { onRequestEnd } from './request-end.ts';

export interface Metrics {
  /** Times every request; put it first. */
  observe: RequestHandler;
  /** Serves the exposition text. */
  handler: RequestHandler;
  /** For other modules' series (usage counting). */
  registry: Registry;
  /** Counts a request served by the direct REST path (src/http/direct-rest.ts), not by express. */
  countDirect(): void;
  /** Counts a /graphql POST read from node:http (src/http/graphql-post.ts), not by express. */
  countDirectGraphQL(): void;
}

/** Paths served outside the REST route table, which stand for themselves. */
const FIXED_ENDPOINTS = new Set([
  '/graphql',
  '/oauth/token',
  '/.well-known/jwks.json',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-protected-resource/mcp',
  '/mcp',
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/docs',
]);

/**
 * A counter without labels that every request moves: counted in a plain number and handed to
 * prom-client when /metrics is read. prom-client's `inc()` hashes the labels and allocates on every
 * call, a measurable share of a small read when a request moves three such counters.
 */
export function tally(configuration: Omit<CounterConfiguration<never>, 'labelNames' | 'collect'>): { inc(): void } {
  let pending = 0;
  new Counter({
    ...configuration,
    collect() {
      if (pending === 0) return;
      this.inc(pending);
      pending = 0;
    },
  });
  return {
    inc: () => {
      pending += 1;
    },
  };
}

const CSV_EXPORT_OUTCOMES = ['completed', 'failed', 'client_gone'] as const;

export function createMetrics(): Metrics {
  // A registry per app, so several apps in one process (tests) do not share series.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by endpoint (method and route template) and status',
    labelNames: ['endpoint', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const csvExports = new Counter({
    name: 'csv_exports_total',
    help: 'CSV exports that began streaming, by outcome: completed, failed (a page failed; the transfer was cut) or client_gone',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of CSV_EXPORT_OUTCOMES) csvExports.inc({ outcome }, 0);
  const direct = tally({
    name: 'http_direct_rest_requests_total',
    help: 'GETs of /api served straight from node:http, without express (nothing that needs express: no body, CORS, conditional request or CSV)',
    registers: [registry],
  });

  // One series per endpoint and status, looked up by one string instead of prom-client hashing the
  // label object on every observation.
  const series = new Map<string, Histogram.Internal<'endpoint' | 'status'>>();
  const seriesOf = (endpoint: string, status: number) => {
    const key = `${status} ${endpoint}`;
    let found = series.get(key);
    if (!found) series.set(key, (found = duration.labels({ endpoint, status: String(status) })));
    return found;
  };

  const directGraphQL = tally({
    name: 'http_direct_graphql_requests_total',
    help: 'POSTs of /graphql read from node:http, without express (JSON of a document served compiled before; no compressed body, CORS or body over 1 MiB)',
    registers: [registry],
  });

  return {
    registry,
    countDirect: () => direct.inc(),
    countDirectGraphQL: () => directGraphQL.inc(),
    observe: (req, res, next) => {
      const started = performance.now();
      // Also when the client leaves first: those requests count, as 499.
      onRequestEnd(res, () => {
        // /docs serves its page and assets beneath one mount: they count as one endpoint.
        const path = req.baseUrl === '/docs' ? '/docs' : req.baseUrl + req.path;
        const endpoint =
          (res.locals.endpoint as string | undefined) ?? (FIXED_ENDPOINTS.has(path) ? `${req.method} ${path}` : 'unmatched');
        seriesOf(endpoint, finalStatus(res)).observe((performance.now() - started) / 1000);
        // The export leaves its state in res.locals (src/rest/csv-export.ts); whether every byte went out is known now.
        const csvExport = res.locals.csvExport as CsvExportState | undefined;
        if (csvExport) csvExports.inc({ outcome: csvExport === 'failed' ? 'failed' : res.writableFinished ? 'completed' : 'client_gone' });
      });
      next();
    },
    handler: async (_req, res) => {
      res.set('Content-Type', registry.contentType).send(await registry.metrics());
    },
  };
}
