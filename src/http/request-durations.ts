/**
 * `http_request_duration_seconds`: every request's duration by endpoint and status, a Prometheus
 * histogram. prom-client's labelled Histogram validates and hashes the label object and finds its
 * bucket through a number turned into a property name on every observation. Here a series is found by
 * one string and counts into an array; prom-client's registry still reads it (`get`, `reset`) and writes
 * the exposition text, the same text the Histogram gave (docs/request-pipeline.md, "Metrics").
 */
import type { Metric, Registry } from 'prom-client';

interface Series {
  readonly endpoint: string;
  readonly status: string;
  /** Observations per bucket, not cumulative; the last is past every bound (+Inf). */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

interface Value {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export class RequestDurations {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP request duration by endpoint (method and route template) and status';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    // The registry reads a metric through name, help, type, aggregator, get and reset; its type names
    // only prom-client's own classes.
    registry.registerMetric(this as unknown as Metric);
  }

  observe(endpoint: string, status: number, seconds: number): void {
    const key = `${status} ${endpoint}`;
    let series = this.series.get(key);
    if (!series) {
      series = { endpoint, status: String(status), counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    let bucket = 0;
    while (bucket < this.buckets.length && seconds > this.buckets[bucket]!) bucket += 1;
    series.counts[bucket]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** As prom-client's Histogram gives it: per series its cumulative buckets (`le` first), +Inf, sum and count. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Value[] }> {
    const values: Value[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { endpoint, status, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += counts[index]!;
        values.push({ metricName: bucketName, labels: { le: bound, endpoint, status }, value: cumulative });
      });
      values.push(
        { metricName: bucketName, labels: { le: '+Inf', endpoint, status }, value: count },
        { metricName: `${this.name}_sum`, labels: { endpoint, status }, value: sum },
        { metricName: `${this.name}_count`, labels: { endpoint, status }, value: count },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
