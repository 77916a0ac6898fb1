/**
 * The scale table: each request's median latency over sequential requests (no concurrency), so the
 * figure is what one request costs at this database size. `npm run bench` prints it beside the
 * throughput table; run it at BENCH_ENTITIES=100000 and 1000000 to compare.
 */
import { LIST_FILTER } from './scenarios.ts';

export interface ScaleRequest {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export const NESTED_QUERY_SCALE = '{ entities(limit: 25) { data { name founders { name companies { entity { name } } } } } }';

/** The table: `count` is the number of live entities, for the deep-offset rows. */
export function scaleRequests(count: number, deepCursor: string): ScaleRequest[] {
  const list = '/api/entities?limit=25';
  const filtered = `/api/entities?filter=${encodeURIComponent(LIST_FILTER)}&sort=-total_funding_usd&limit=25`;
  return [
    { name: '/api/entities?limit=25', method: 'GET', path: list },
    { name: 'same + include_total', method: 'GET', path: `${list}&include_total=true` },
    { name: 'filter + sort + include_total', method: 'GET', path: `${filtered}&include_total=true` },
    { name: 'offset at 90% of the list', method: 'GET', path: `${list}&offset=${Math.floor(count * 0.9)}` },
    { name: 'last page by offset', method: 'GET', path: `${list}&offset=${Math.max(0, count - 25)}` },
    { name: 'cursor page deep in the list', method: 'GET', path: `${list}&cursor=${deepCursor}` },
    { name: 'name[eq]', method: 'GET', path: `/api/entities?filter=${encodeURIComponent('name:"Peak Angels"')}&limit=25` },
    { name: 'hq_country:Germany', method: 'GET', path: `/api/entities?filter=${encodeURIComponent('hq_country:Germany')}&limit=25` },
    {
      name: 'hq_country:Germany + include_total',
      method: 'GET',
      path: `/api/entities?filter=${encodeURIComponent('hq_country:Germany')}&limit=25&include_total=true`,
    },
    { name: 'GraphQL nested', method: 'POST', path: '/graphql', body: JSON.stringify({ query: NESTED_QUERY_SCALE }) },
  ];
}

/** Median milliseconds of `times` sequential requests (after one warm-up); throws on a non-2xx answer. */
export async function medianLatency(
  url: string,
  request: ScaleRequest,
  headers: Record<string, string>,
  times: number,
): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index <= times; index += 1) {
    const started = performance.now();
    const response = await fetch(`${url}${request.path}`, { method: request.method, headers, body: request.body });
    const body = await response.text();
    if (!response.ok) throw new Error(`${request.name}: ${response.status} ${body}`);
    if (index > 0) samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}
