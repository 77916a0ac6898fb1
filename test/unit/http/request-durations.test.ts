// The request-duration histogram counted without prom-client's per-observation hashing: what /metrics
// serves from it is what prom-client's own labelled Histogram serves for the same observations.
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurations } from '../../../src/http/request-durations.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

// On a bound, between bounds, past every bound, and zero; three series, one of them seen once.
const OBSERVATIONS: [endpoint: string, status: number, seconds: number][] = [
  ['GET /api/entities/{id}', 200, 0.0031],
  ['GET /api/entities/{id}', 200, 0.005],
  ['GET /api/entities/{id}', 200, 0.0051],
  ['GET /api/entities/{id}', 200, 0.3],
  ['GET /api/entities/{id}', 404, 7.5],
  ['POST /graphql', 200, 0],
  ['GET /api/entities/{id}', 200, 1],
  ['GET /api/entities/{id}', 404, 0.02],
  ['unmatched', 499, 2.5],
];

function reference(): Registry {
  const registry = new Registry();
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by endpoint (method and route template) and status',
    labelNames: ['endpoint', 'status'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [endpoint, status, seconds] of OBSERVATIONS) histogram.labels({ endpoint, status: String(status) }).observe(seconds);
  return registry;
}

describe('RequestDurations', () => {
  it("serves the exposition text prom-client's labelled Histogram serves for the same observations", async () => {
    const registry = new Registry();
    const durations = new RequestDurations(BUCKETS, registry);
    for (const [endpoint, status, seconds] of OBSERVATIONS) durations.observe(endpoint, status, seconds);
    const text = await registry.metrics();
    expect(text).toBe(await reference().metrics());
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",endpoint="GET /api/entities/{id}",status="200"} 2');
    expect(text).toContain('http_request_duration_seconds_bucket{le="5",endpoint="GET /api/entities/{id}",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{endpoint="GET /api/entities/{id}",status="404"} 2');
  });

  it('gives the same JSON (what a cluster aggregates) and forgets its series on reset', async () => {
    const registry = new Registry();
    const durations = new RequestDurations(BUCKETS, registry);
    for (const [endpoint, status, seconds] of OBSERVATIONS) durations.observe(endpoint, status, seconds);
    // Exemplars are OpenMetrics' (off here): the Histogram lists each as null.
    const withoutExemplars = (json: unknown) => JSON.parse(JSON.stringify(json, (key, value: unknown) => (key === 'exemplar' ? undefined : value))) as unknown;
    expect(withoutExemplars(await registry.getMetricsAsJSON())).toEqual(withoutExemplars(await reference().getMetricsAsJSON()));
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('http_request_duration_seconds_bucket');
  });
});
