/**
 * `/metrics` in Prometheus text (prom-client): process metrics and one histogram of request durations
 * by endpoint and status. An endpoint is the method and route template (`GET /api/entities/{id}`),
 * never a raw path, so the number of series stays bounded whatever clients send.
 */
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { finalStatus } from './access-log.ts';

export interface Metrics {
  /** Times every request; put it first. */
  observe: RequestHandler;
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
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/docs',
]);

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

  return {
    registry,
    observe: (req, res, next) => {
      const stop = duration.startTimer();
      // 'close' also fires when the client leaves first: those requests count, as 499.
      res.on('close', () => {
        // /docs serves its page and assets beneath one mount: they count as one endpoint.
        const path = req.baseUrl === '/docs' ? '/docs' : req.baseUrl + req.path;
        const endpoint =
          (res.locals.endpoint as string | undefined) ?? (FIXED_ENDPOINTS.has(path) ? `${req.method} ${path}` : 'unmatched');
        stop({ endpoint, status: String(finalStatus(res)) });
      });
      next();
    },
    handler: async (_req, res) => {
      res.set('Content-Type', registry.contentType).send(await registry.metrics());
    },
  };
}
