// Usage counting seen from outside: a known mix of requests on both transports (successes, 4xx,
// refusals after the token is verified) shows up per endpoint within 5 seconds, as requests and
// errors, in hourly and daily buckets; the reader's own reads are counted to the reader.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { authHeaders, createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { seriesTotals, waitForSeries, type UsageRow } from './support.ts';

let app: TestApp;
let admin: TestCredentials;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ env: { USAGE_FLUSH_INTERVAL_MS: '200' } });
  admin = await createApiKeyAndToken(app);
  client = await createApiKeyAndToken(app, { permissions: ['read:entities', 'read:usage'] });
});

afterAll(async () => {
  await app.close();
});

const today = (): string => new Date().toISOString().slice(0, 10);

it('counts each endpoint and its errors, on REST and GraphQL, within 5 seconds', async () => {
  const statuses: number[] = [];
  const send = async (response: Promise<Response>) => {
    const answer = await response;
    await answer.arrayBuffer();
    statuses.push(answer.status);
    return answer;
  };
  for (let i = 0; i < 3; i += 1) await send(client.fetch('/api/entities'));
  await send(client.fetch('/api/entities/999999'));
  await send(client.fetch('/api/entities/424242'));
  await send(client.fetch('/api/entities?limit=0'));
  await send(client.fetch('/api/founders')); // no read:founders
  const graphql = { method: 'POST', headers: { 'content-type': 'application/json' } };
  await send(client.fetch('/graphql', { ...graphql, body: '{"query":"{ __typename }"}' }));
  await send(client.fetch('/graphql', { ...graphql, body: '{"query":"{ __typename }"}' }));
  await send(client.fetch('/graphql', { ...graphql, body: '{"query":"{ founders { data { id } } }"}' }));
  // A request error: 400 as application/graphql-response+json (200 as application/json, which is no error).
  await send(client.fetch('/graphql', { ...graphql, headers: { ...graphql.headers, accept: 'application/graphql-response+json' }, body: '{"query":"{ nope }"}' }));
  // A valid token sent with another X-Client-Id: refused, and counted to the token's client.
  await send(app.fetch('/api/entities', { headers: { ...client.headers, 'X-Client-Id': admin.clientId } }));
  // Without a valid token the client is only claimed, never known: not counted.
  await send(app.fetch('/api/entities', { headers: { ...authHeaders('not-a-token', client.clientId) } }));
  await send(app.fetch('/api/entities', { headers: { 'X-Client-Id': client.clientId, 'User-Agent': 'x' } }));
  expect(statuses).toEqual([200, 200, 200, 404, 404, 400, 403, 200, 200, 403, 400, 400, 401, 400]);

  const rows = await waitForSeries(admin, `start_date=${today()}&end_date=${today()}&granularity=hourly&client_id=${client.clientId}`, (series) =>
    seriesTotals(series).get('GET /api/entities')?.requests === 5,
  );
  expect(Object.fromEntries(seriesTotals(rows))).toEqual({
    'GET /api/entities': { requests: 5, errors: 2 },
    'GET /api/entities/{id}': { requests: 2, errors: 2 },
    'GET /api/founders': { requests: 1, errors: 1 },
    'POST /graphql': { requests: 4, errors: 2 },
  });
  for (const row of rows) expect(row.bucket).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);

  const daily = await waitForSeries(admin, `start_date=${today()}&end_date=${today()}&client_id=${client.clientId}`, () => true);
  expect(daily.every((row) => row.bucket === `${today()}T00:00:00.000Z`)).toBe(true);
  expect(daily.map((row) => row.endpoint)).toEqual(['GET /api/entities', 'GET /api/entities/{id}', 'GET /api/founders', 'POST /graphql']);
  expect(Object.fromEntries(seriesTotals(daily))).toEqual(Object.fromEntries(seriesTotals(rows)));
});

it("counts the reader's own reads to the reader, including over GraphQL", async () => {
  const reader = await createApiKeyAndToken(app, { permissions: ['read:usage'] });
  const query = `start_date=${today()}&end_date=${today()}`;
  expect((await reader.fetch(`/api/usage/timeseries?${query}`)).status).toBe(200);
  const { status } = await reader.graphql(`{ usageTimeseries(start_date: "${today()}", end_date: "${today()}") { endpoint request_count } }`);
  expect(status).toBe(200);
  const rows = await waitForSeries(reader, query, (series) => series.length === 2);
  expect(rows.map((row: UsageRow) => [row.endpoint, row.request_count, row.error_count])).toEqual([
    ['GET /api/usage/timeseries', expect.any(Number), 0],
    ['POST /graphql', 1, 0],
  ]);
});

it('puts RateLimit-* on refusals after the token is verified, and counts a revoked key as errors', async () => {
  const doomed = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  const mismatch = await app.fetch('/api/entities', { headers: { ...doomed.headers, 'X-Client-Id': 'someone-else' } });
  expect(mismatch.status).toBe(400);
  expect(mismatch.headers.get('ratelimit-limit')).toBe(app.config.RATE_LIMIT_BURST.toString());
  expect((await admin.fetch(`/api/api-keys/${doomed.keyId}`, { method: 'DELETE' })).status).toBe(204);
  const revoked = await doomed.fetch('/api/entities');
  expect(revoked.status).toBe(401);
  expect(revoked.headers.get('ratelimit-remaining')).not.toBeNull();
  const revokedGraphql = await doomed.graphql('{ __typename }');
  expect(revokedGraphql.status).toBe(401);

  const rows = await waitForSeries(admin, `start_date=${today()}&end_date=${today()}&client_id=${doomed.clientId}`, (series) =>
    series.length === 2,
  );
  expect(Object.fromEntries(seriesTotals(rows))).toEqual({
    'GET /api/entities': { requests: 2, errors: 2 },
    'POST /graphql': { requests: 1, errors: 1 },
  });
});

it('shows counters without a client label on /metrics', async () => {
  const text = await (await app.fetch('/metrics')).text();
  expect(text).toMatch(/usage_requests_total\{endpoint="GET \/api\/entities\/\{id\}",error="true"\} [1-9]/);
  expect(text).toMatch(/usage_bucket_rows_written_total [1-9]/);
  expect(text).not.toContain(client.clientId);
});
