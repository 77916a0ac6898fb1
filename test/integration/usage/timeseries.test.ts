// GET /api/usage/timeseries and Query.usageTimeseries on known buckets: hourly and daily sums, the
// date range (inclusive, UTC), ordering, every validation rule, and who sees which client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToBuckets, type BucketIncrement } from '../../../src/usage/store.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, createUserToken, TEST_ORG, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let admin: TestCredentials;
const SERIES_CLIENT = 'series-client';

const increment = (bucket: string, endpoint: string, requests: number, errors: number, orgId = TEST_ORG, clientId = SERIES_CLIENT): BucketIncrement => ({
  orgId,
  clientId,
  endpoint,
  bucket: new Date(bucket),
  requests,
  errors,
});

beforeAll(async () => {
  app = await startTestApp();
  admin = await createApiKeyAndToken(app);
  await addToBuckets(app.db.sql, [
    increment('2026-02-28T23:00:00Z', 'GET /api/entities', 9, 0), // the day before start_date
    increment('2026-03-01T05:00:00Z', 'GET /api/entities', 3, 0),
    increment('2026-03-01T05:00:00Z', 'POST /graphql', 1, 0),
    increment('2026-03-01T23:00:00Z', 'GET /api/news', 2, 1),
    increment('2026-03-02T00:00:00Z', 'GET /api/entities', 4, 2),
    increment('2026-03-03T00:00:00Z', 'GET /api/entities', 7, 0), // the day after end_date
    increment('2026-03-01T05:00:00Z', 'GET /api/entities', 100, 100, 'other-org'), // same client id, other organisation
    increment('2026-03-01T05:00:00Z', 'GET /api/entities', 5, 0, 'other-org', 'other-org-client'),
  ]);
  // Adding again adds (a second instance's flush), it never overwrites.
  await addToBuckets(app.db.sql, [increment('2026-03-01T23:00:00Z', 'GET /api/news', 1, 0)]);
});

afterAll(async () => {
  await app.close();
});

async function series(reader: TestCredentials, query: string): Promise<{ status: number; body: any }> {
  const response = await reader.fetch(`/api/usage/timeseries?${query}`);
  return { status: response.status, body: await response.json() };
}

const RANGE = 'start_date=2026-03-01&end_date=2026-03-02';

describe('the series', () => {
  it('sums hourly buckets of the inclusive range, ordered by bucket then endpoint, without a page', async () => {
    const { status, body } = await series(admin, `${RANGE}&granularity=hourly&client_id=${SERIES_CLIENT}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      data: [
        { bucket: '2026-03-01T05:00:00.000Z', endpoint: 'GET /api/entities', request_count: 3, error_count: 0, rows_exported: 0 },
        { bucket: '2026-03-01T05:00:00.000Z', endpoint: 'POST /graphql', request_count: 1, error_count: 0, rows_exported: 0 },
        { bucket: '2026-03-01T23:00:00.000Z', endpoint: 'GET /api/news', request_count: 3, error_count: 1, rows_exported: 0 },
        { bucket: '2026-03-02T00:00:00.000Z', endpoint: 'GET /api/entities', request_count: 4, error_count: 2, rows_exported: 0 },
      ],
    });
  });

  it('sums days (UTC) when daily, the default', async () => {
    const { body } = await series(admin, `${RANGE}&client_id=${SERIES_CLIENT}`);
    expect(body.data).toEqual([
      { bucket: '2026-03-01T00:00:00.000Z', endpoint: 'GET /api/entities', request_count: 3, error_count: 0, rows_exported: 0 },
      { bucket: '2026-03-01T00:00:00.000Z', endpoint: 'GET /api/news', request_count: 3, error_count: 1, rows_exported: 0 },
      { bucket: '2026-03-01T00:00:00.000Z', endpoint: 'POST /graphql', request_count: 1, error_count: 0, rows_exported: 0 },
      { bucket: '2026-03-02T00:00:00.000Z', endpoint: 'GET /api/entities', request_count: 4, error_count: 2, rows_exported: 0 },
    ]);
    expect((await series(admin, `${RANGE}&granularity=daily&client_id=${SERIES_CLIENT}`)).body).toEqual(body);
  });

  it('answers the same over GraphQL', async () => {
    const { status, body } = await admin.graphql(
      `query ($client: String) { usageTimeseries(start_date: "2026-03-02", end_date: "2026-03-02", granularity: "hourly", client_id: $client) { bucket endpoint request_count error_count } }`,
      { client: SERIES_CLIENT },
    );
    expect(status).toBe(200);
    expect(body.data?.usageTimeseries).toEqual([
      { bucket: '2026-03-02T00:00:00.000Z', endpoint: 'GET /api/entities', request_count: 4, error_count: 2 },
    ]);
  });

  it('is empty where nothing was counted, and takes a full leap year', async () => {
    expect((await series(admin, `start_date=2024-01-01&end_date=2024-12-31&client_id=${SERIES_CLIENT}`)).body).toEqual({ data: [] });
  });
});

describe('validation', () => {
  const cases: [string, string, { path: string; message: RegExp }[]][] = [
    ['no dates', '', [{ path: 'query.start_date', message: /required/ }, { path: 'query.end_date', message: /required/ }]],
    ['no end date', 'start_date=2026-03-01', [{ path: 'query.end_date', message: /required/ }]],
    ['not a calendar date', 'start_date=2026-02-29&end_date=2026-03-01', [{ path: 'query.start_date', message: /calendar date/ }]],
    ['not ISO', 'start_date=2026-3-1&end_date=01/03/2026', [{ path: 'query.start_date', message: /YYYY-MM-DD/ }, { path: 'query.end_date', message: /YYYY-MM-DD/ }]],
    ['a date-time', 'start_date=2026-03-01T00:00:00Z&end_date=2026-03-02', [{ path: 'query.start_date', message: /YYYY-MM-DD/ }]],
    ['end before start', 'start_date=2026-03-02&end_date=2026-03-01', [{ path: 'query.end_date', message: /not be before start_date/ }]],
    ['over 366 days', 'start_date=2025-01-01&end_date=2026-01-02', [{ path: 'query.end_date', message: /at most 366 days.*367/ }]],
    ['unknown granularity', `${RANGE}&granularity=weekly`, [{ path: 'query.granularity', message: /hourly, daily/ }]],
    ['empty client_id', `${RANGE}&client_id=`, [{ path: 'query.client_id', message: /empty/ }]],
    ['a parameter twice', `${RANGE}&start_date=2026-03-01`, [{ path: 'query.start_date', message: /once/ }]],
    ['an unknown parameter', `${RANGE}&granularty=hourly`, [{ path: 'query.granularty', message: /granularity/ }]],
  ];

  it.each(cases)('%s: 400 VALIDATION_ERROR with a detail per problem', async (_name, query, expected) => {
    const { status, body } = await series(admin, query);
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details).toHaveLength(expected.length);
    for (const [index, detail] of expected.entries()) {
      expect(body.error.details[index].path).toBe(detail.path);
      expect(body.error.details[index].message).toMatch(detail.message);
    }
  });

  it('reports the same problems over GraphQL, paths named after the arguments', async () => {
    const { body } = await admin.graphql('{ usageTimeseries(start_date: "2026-3-1", end_date: "2026-02-30", granularity: "yearly") { bucket } }');
    expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(body.errors?.[0]?.extensions?.details?.map((detail) => detail.path)).toEqual(['start_date', 'end_date', 'granularity']);
  });
});

describe('who sees which client', () => {
  it('a machine token sees its own client; another needs admin:api-keys (403)', async () => {
    const machine = await createApiKeyAndToken(app, { permissions: ['read:usage'] });
    expect((await series(machine, RANGE)).status).toBe(200);
    expect((await series(machine, `${RANGE}&client_id=${machine.clientId}`)).status).toBe(200);
    const refused = await series(machine, `${RANGE}&client_id=${SERIES_CLIENT}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('admin:api-keys') });
    const graphql = await machine.graphql(`{ usageTimeseries(start_date: "2026-03-01", end_date: "2026-03-01", client_id: "${SERIES_CLIENT}") { bucket } }`);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('needs read:usage at all', async () => {
    const reader = await createApiKeyAndToken(app, { permissions: ['read:entities', 'admin:api-keys'] });
    const { status, body } = await series(reader, RANGE);
    expect(status).toBe(403);
    expect(body.error.message).toContain('read:usage');
  });

  it('never shows another organisation, even to its administrator', async () => {
    const { body } = await series(admin, `${RANGE}&granularity=hourly&client_id=other-org-client`);
    expect(body).toEqual({ data: [] });
    const otherAdmin = await createApiKeyAndToken(app, { org: 'other-org' });
    const { body: theirs } = await series(otherAdmin, `start_date=2026-03-01&end_date=2026-03-01&client_id=${SERIES_CLIENT}`);
    expect(theirs.data).toEqual([{ bucket: '2026-03-01T00:00:00.000Z', endpoint: 'GET /api/entities', request_count: 100, error_count: 100, rows_exported: 0 }]);
  });

  it('a user token sees its own client; the organisation\'s clients only through client_id with admin:api-keys', async () => {
    const user = await createUserToken(app, { user: 'usage-user', permissions: ['read:usage'] });
    expect((await series(user, `${RANGE}&client_id=${SERIES_CLIENT}`)).status).toBe(403);
    expect((await series(user, RANGE)).body).toEqual({ data: [] });
    const manager = await createUserToken(app, { user: 'usage-manager', permissions: ['read:usage', 'admin:api-keys'] });
    const { body } = await series(manager, `start_date=2026-03-02&end_date=2026-03-02&client_id=${SERIES_CLIENT}`);
    expect(body.data).toEqual([{ bucket: '2026-03-02T00:00:00.000Z', endpoint: 'GET /api/entities', request_count: 4, error_count: 2, rows_exported: 0 }]);
  });
});

it('is described in /openapi.json: both dates required, granularity and client_id optional', async () => {
  const doc = (await (await app.fetch('/openapi.json')).json()) as {
    paths: Record<string, { get?: { parameters: { name: string; required?: boolean }[] } }>;
  };
  // The shared header parameters are references; the query parameters are inline.
  const parameters = (doc.paths['/api/usage/timeseries']?.get?.parameters ?? []).filter((parameter) => parameter.name);
  expect(Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.required ?? false]))).toEqual({
    start_date: true,
    end_date: true,
    granularity: false,
    client_id: false,
  });
});
