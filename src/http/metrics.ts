/**
 * `/metrics` in Prometheus text (prom-client): process metrics, one histogram of request durations
 * by endpoint and status, and the outcomes of CSV exports. An endpoint is the method and route template
 * (`GET /api/entities/{id}`), never a raw path, so the number of series stays bounded whatever clients send.
 */
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import type { Exchange } from './exchange.ts';
import { RequestDurations } from './request-durations.ts';

export interface Metrics {
  /** Times a request once it has ended (the client may have left first: then as 499). */
  observe(exchange: Exchange): void;
  /** Serves the exposition text. */
  handler: RequestHandler;
  /** For other modules' series (usage counting). */
  registry: Registry;
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

const CSV_EXPORT_OUTCOMES = ['completed', 'failed', 'client_gone'] as const;

export function createMetrics(): Metrics {
  // A registry per app, so several apps in one process (tests) do not share series.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const durations = new RequestDurations([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registry);
  const csvExports = new Counter({
    name: 'csv_exports_total',
    help: 'CSV exports that began streaming, by outcome: completed, failed (a page failed; the transfer was cut) or client_gone',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of CSV_EXPORT_OUTCOMES) csvExports.inc({ outcome }, 0);

  return {
    registry,
    observe: (exchange) => {
      // /docs serves its page and assets beneath one mount: they count as one endpoint.
      const path = exchange.path.startsWith('/docs/') ? '/docs' : exchange.path;
      const endpoint = exchange.endpoint ?? (FIXED_ENDPOINTS.has(path) ? `${exchange.method} ${path}` : 'unmatched');
      durations.observe(endpoint, exchange.finalStatus(), (performance.now() - exchange.started) / 1000);
      // Whether every byte of an export went out is known now.
      const csvExport = exchange.csvExport;
      if (csvExport) csvExports.inc({ outcome: csvExport === 'failed' ? 'failed' : exchange.res.writableFinished ? 'completed' : 'client_gone' });
    },
    handler: async (_req, res) => {
      res.set('Content-Type', registry.contentType).send(await registry.metrics());
    },
  };
}
