// Every date and number the API accepts stays within what the database (and JavaScript's Date) hold:
// beyond it the answer is a 400 in the error envelope naming the range (FILTER_VALIDATION_ERROR for
// filter values, VALIDATION_ERROR otherwise), never a 500 from PostgreSQL; at the edges of the range it
// is an answer. One table, sent over HTTP, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterDigest } from '../../../src/schema/list-order.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let client: TestCredentials;
let landscapeId: number;

beforeAll(async () => {
  app = await startTestApp();
  client = await createApiKeyAndToken(app);
  const ecosystem = await client.fetch('/api/ecosystems', post({ slug: 'ranges', name: 'Ranges', filter: 'launch_year[gte]:2000' }));
  expect(ecosystem.status).toBe(201);
  const landscape = await client.fetch('/api/ecosystems/ranges/landscapes', post({ name: 'Ranges' }));
  expect(landscape.status).toBe(201);
  landscapeId = ((await landscape.json()) as { data: { id: number } }).data.id;
});

afterAll(async () => {
  await app.close();
});

function post(body: unknown, method = 'POST'): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

type Request = { path: string | (() => string); init?: RequestInit | (() => RequestInit) } | { graphql: string };

interface Expected {
  status: number;
  code?: string;
  /**
   * Matched against the error message and its details' (GraphQL: the first error's). GraphQL answers
   * a refused argument with a 200 carrying the error (a field error, or a document error to a client
   * accepting application/json; docs/graphql-errors.md); its code and message are REST's.
   */
  message?: RegExp;
  /** The first detail's path (REST). */
  path?: string;
}

interface Answer {
  status: number;
  code: string | undefined;
  /** The message, then each detail's, joined by ` | `. */
  message: string;
  path: string | undefined;
}

async function send(request: Request): Promise<Answer> {
  if ('graphql' in request) {
    const { status, body } = await client.graphql(request.graphql);
    const error = body.errors?.[0];
    const details = error?.extensions?.details ?? [];
    const message = [error?.message, ...details.map((detail) => detail.message)].join(' | ');
    return { status, code: error?.extensions?.code, message, path: details[0]?.path };
  }
  const path = typeof request.path === 'function' ? request.path() : request.path;
  const init = typeof request.init === 'function' ? request.init() : request.init;
  const response = await client.fetch(path, init);
  const text = await response.text();
  const body = text ? (JSON.parse(text) as { error?: { code: string; message: string; details?: { path: string; message: string }[] } }) : {};
  const details = body.error?.details ?? [];
  const message = [body.error?.message, ...details.map((detail) => detail.message)].join(' | ');
  return { status: response.status, code: body.error?.code, message, path: details[0]?.path };
}

const filter = (resource: string, expression: string) => `/api/${resource}?filter=${encodeURIComponent(expression)}`;
const usage = (start: string, end: string, extra = '') => `/api/usage/timeseries?start_date=${start}&end_date=${end}${extra}`;
const DATE_RANGE = /out of range: dates run from 0001-01-01 to 9999-12-31/;
const DATE_TIME_RANGE = /out of range: date-times run from 0001-01-01T00:00:00\.000Z to 9999-12-31T23:59:59\.999Z/;
const INT_RANGE = /expected an integer from -2147483648 to 2147483647/;
const MONEY_RANGE = /out of range: amounts run from -9223372036854775808 to 9223372036854775807/;
const USAGE_RANGE = /must be a date from 0001-01-01 to 9999-12-31/;
const filterError = (message: RegExp): Expected => ({ status: 400, code: 'FILTER_VALIDATION_ERROR', message, path: 'query.filter' });
const OK: Expected = { status: 200 };

const rows: [string, Request, Expected][] = [
  // ── usage dates (src/usage/timeseries.ts): the report's 0000-01-01 ──
  ['usage: start_date in year 0', { path: usage('0000-01-01', '0000-01-02') }, { status: 400, code: 'VALIDATION_ERROR', message: USAGE_RANGE, path: 'query.start_date' }],
  ['usage: year 0 to year 1', { path: usage('0000-12-31', '0001-01-01') }, { status: 400, code: 'VALIDATION_ERROR', message: USAGE_RANGE, path: 'query.start_date' }],
  ['usage: 0000-02-29 (a leap day of year 0)', { path: usage('0000-02-29', '0000-03-01') }, { status: 400, code: 'VALIDATION_ERROR', path: 'query.start_date' }],
  ['usage: the first days', { path: usage('0001-01-01', '0001-01-02', '&granularity=hourly') }, OK],
  ['usage: the last day', { path: usage('9999-12-31', '9999-12-31', '&granularity=hourly') }, OK],
  ['usage: five-digit year', { path: usage('10000-01-01', '10000-01-01') }, { status: 400, code: 'VALIDATION_ERROR', path: 'query.start_date' }],
  ['usage over GraphQL: year 0', { graphql: '{ usageTimeseries(start_date: "0000-01-01", end_date: "0000-01-01") { bucket } }' }, { status: 200, code: 'VALIDATION_ERROR', path: 'start_date' }],
  ['usage over GraphQL: the last day', { graphql: '{ usageTimeseries(start_date: "9999-12-31", end_date: "9999-12-31") { bucket } }' }, OK],

  // ── filter dates and date-times (src/filter/values.ts) ──
  ['datetime: a date in year 0', { path: filter('entities', 'created_at[gte]:0000-01-01') }, filterError(DATE_TIME_RANGE)],
  ['datetime: year 0 with a time', { path: filter('entities', 'created_at[gte]:0000-06-01T00:00:00Z') }, filterError(DATE_TIME_RANGE)],
  ['datetime: an offset carrying year 1 into year 0', { path: filter('entities', 'created_at[gte]:0001-01-01T00:00:00+01:00') }, filterError(DATE_TIME_RANGE)],
  ['datetime: an offset carrying 9999 into 10000', { path: filter('entities', 'created_at[lt]:9999-12-31T23:59:59.999-00:01') }, filterError(DATE_TIME_RANGE)],
  ['datetime: +275760-09-13 (the last JavaScript date)', { path: filter('entities', 'created_at[gte]:+275760-09-13') }, filterError(/expected a date \(YYYY-MM-DD\) or date-time/)],
  ['datetime: 275760-09-13', { path: filter('entities', 'created_at[gte]:275760-09-13') }, filterError(/expected a date \(YYYY-MM-DD\) or date-time/)],
  ['datetime: the first instant', { path: filter('entities', 'created_at[gte]:0001-01-01T00:00:00Z') }, OK],
  ['datetime: the last instant', { path: filter('entities', 'created_at[lte]:9999-12-31T23:59:59.999Z') }, OK],
  ['datetime: the last day', { path: filter('news', 'publish_date[gte]:9999-12-31') }, OK],
  ['date: year 0', { path: filter('transactions', 'date[gte]:0000-01-01') }, filterError(DATE_RANGE)],
  ['date: 0000-02-29', { path: filter('news', 'deal_date:0000-02-29') }, filterError(DATE_RANGE)],
  ['date: the first day', { path: filter('valuations', 'date[gte]:0001-01-01') }, OK],
  ['date: the last day', { path: filter('transactions', 'date[lte]:9999-12-31') }, OK],

  // ── filter numbers ──
  ['int: beyond int4', { path: filter('entities', 'launch_year[gte]:99999999999') }, filterError(INT_RANGE)],
  ['int: below int4', { path: filter('investors', 'investments_count[gt]:-2147483649') }, filterError(INT_RANGE)],
  ['int: the int4 edge', { path: filter('entities', 'launch_year[lte]:2147483647') }, OK],
  ['id: beyond int4', { path: filter('entities', 'id:99999999999') }, filterError(INT_RANGE)],
  ['id list: beyond int4', { path: filter('entities', 'tags[in_any]:1|99999999999') }, filterError(INT_RANGE)],
  ['location: beyond int4', { path: filter('entities', 'location:99999999999') }, filterError(INT_RANGE)],
  ['money: beyond int8', { path: filter('entities', 'total_funding_usd[gte]:9223372036854775808') }, filterError(MONEY_RANGE)],
  ['money: below int8', { path: filter('valuations', 'valuation_usd[gt]:-9223372036854775809') }, filterError(MONEY_RANGE)],
  ['money: through a relation', { path: filter('entities', 'investor__total_invested_usd[gte]:99999999999999999999') }, filterError(MONEY_RANGE)],
  ['money: the int8 edges', { path: filter('transactions', 'and(amount_usd[lte]:9223372036854775807,valuation_usd[gte]:-9223372036854775808)') }, OK],
  ['money: a fraction of a dollar', { path: filter('entities', 'total_funding_usd[gte]:1.5') }, filterError(/whole number of US dollars but found '1\.5'(?!, out of range)/)],
  ['float: beyond double precision', { path: filter('entities', `lat[gte]:1${'0'.repeat(400)}`) }, filterError(/out of range: numbers run to about ±1\.8e308/)],
  ['float: the largest doubles', { path: filter('news', `relevance_score[lt]:${'9'.repeat(308)}`) }, OK],
  ['float: below the smallest double (rounds to 0)', { path: filter('entities', `lon[gt]:0.${'0'.repeat(400)}1`) }, OK],
  // numeric compares exactly at any size a filter can hold: a decimal has no range to leave.
  ['decimal: far beyond numeric(20,2)', { path: filter('news', `amount_usd[gte]:${'9'.repeat(2000)}.${'9'.repeat(1000)}`) }, OK],
  ['decimal: more places than the column', { path: filter('news', 'amount_usd[in_any]:0.001|-0.005') }, OK],

  // ── filters elsewhere: stored ecosystem filters, GraphQL arguments ──
  ['ecosystem body: a year-0 filter', { path: '/api/ecosystems', init: post({ slug: 'year-zero', name: 'x', filter: 'created_at[gte]:0000-01-01' }) }, { status: 400, code: 'FILTER_VALIDATION_ERROR', message: DATE_TIME_RANGE, path: 'body.filter' }],
  ['ecosystem list: an added filter beyond int4', { path: '/api/ecosystems/ranges/entities?filter=launch_year:99999999999' }, filterError(INT_RANGE)],
  ['GraphQL filter: beyond int8', { graphql: '{ entities(filter: "total_funding_usd[gte]:9223372036854775808") { data { id } } }' }, { status: 200, code: 'FILTER_VALIDATION_ERROR', message: MONEY_RANGE }],

  // ── integers outside the filter (src/rest, src/schema, src/management): as they answer today ──
  // Path ids beyond int4 are a well-formed id no record has (docs/read-api.md): 404, not 400.
  ['path id beyond int4: entity', { path: '/api/entities/99999999999' }, { status: 404, code: 'NOT_FOUND' }],
  ['path id beyond int4: revoke a key', { path: '/api/api-keys/99999999999', init: { method: 'DELETE' } }, { status: 404, code: 'NOT_FOUND' }],
  ['path id beyond int4: landscape', { path: '/api/landscapes/99999999999' }, { status: 404, code: 'NOT_FOUND' }],
  ['path id beyond int4: team', { path: '/api/teams/99999999999' }, { status: 404, code: 'NOT_FOUND' }],
  ['limit beyond int4', { path: '/api/entities?limit=99999999999' }, { status: 400, code: 'VALIDATION_ERROR', path: 'query.limit' }],
  ['offset beyond int4', { path: '/api/entities?offset=99999999999' }, { status: 400, code: 'VALIDATION_ERROR', path: 'query.offset' }],
  ['offset at the int4 edge', { path: '/api/entities?offset=2147483647' }, OK],
  ['API key list: offset beyond int4', { path: '/api/api-keys?offset=99999999999' }, { status: 400, code: 'VALIDATION_ERROR', path: 'query.offset' }],
  ['API key list: offset at the int4 edge', { path: '/api/api-keys?offset=2147483647' }, OK],
  ['landscape body: an entity id beyond int4', { path: () => `/api/landscapes/${landscapeId}/entities`, init: post({ entity_ids: [1, 99999999999] }, 'PUT') }, { status: 400, code: 'VALIDATION_ERROR', path: 'body.entity_ids.1' }],
  ['landscape body: 1e308', { path: () => `/api/landscapes/${landscapeId}/entities`, init: post({ entity_ids: [1e308] }, 'PUT') }, { status: 400, code: 'VALIDATION_ERROR', path: 'body.entity_ids.0' }],
  ['ecosystem body: sort_order beyond int4', { path: '/api/ecosystems', init: post({ slug: 'big-order', name: 'x', filter: 'launch_year:1', sort_order: 99999999999 }) }, { status: 400, code: 'VALIDATION_ERROR', path: 'body.sort_order' }],
  ['GraphQL Int: an id beyond 32 bits', { graphql: '{ entity(id: 99999999999) { id } }' }, { status: 200, code: 'VALIDATION_ERROR', message: /32-bit/ }],
  ['GraphQL Int: revokeApiKey beyond 32 bits', { graphql: 'mutation { revokeApiKey(id: 99999999999) }' }, { status: 200, code: 'VALIDATION_ERROR', message: /32-bit/ }],
  ['GraphQL Int: apiKeys offset beyond 32 bits', { graphql: '{ apiKeys(offset: 99999999999) { data { id } } }' }, { status: 200, code: 'VALIDATION_ERROR', message: /32-bit/ }],
];

describe('values beyond what the database holds are 400, the edges are answered', () => {
  it.each(rows)('%s', async (_name, request, expected) => {
    const answer = await send(request);
    expect(answer.status, JSON.stringify(answer)).toBe(expected.status);
    if (expected.code !== undefined) expect(answer.code).toBe(expected.code);
    if (expected.message !== undefined) expect(answer.message).toMatch(expected.message);
    if (expected.path !== undefined) expect(answer.path).toBe(expected.path);
  });
});

/** A cursor as encodeCursor writes one (sort signature, filter digest, values), with forged values. */
const cursor = (sort: string, values: unknown[]) =>
  Buffer.from(JSON.stringify({ s: sort, f: filterDigest(undefined), v: values })).toString('base64url');

// Cursors travel through clients, so their values are input too: decodeValue (src/schema/list-order.ts)
// holds them to the same ranges as filter values, so a forged year 0 or a money value beyond int8 never
// reaches PostgreSQL.
describe('forged cursors', () => {
  const forged: [string, string][] = [
    ['a date-time in year 0', `/api/entities?sort=created_at&cursor=${cursor('created_at,id', ['0000-01-01T00:00:00.000Z', 1])}`],
    ['a date in year 0', `/api/transactions?sort=date&cursor=${cursor('date,id', ['0000-01-01T00:00:00.000Z', 1])}`],
    ['money beyond int8', `/api/entities?sort=total_funding_usd&cursor=${cursor('total_funding_usd,id', ['9999999999999999999', 1])}`],
  ];

  it.each(forged)('%s: 400 VALIDATION_ERROR at query.cursor', async (_name, path) => {
    const answer = await send({ path });
    expect(answer).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', path: 'query.cursor' });
  });

  it.each(forged)('%s: in range, the same cursor shape is answered', async (_name, path) => {
    const inRange = path.replace(/cursor=[^&]+/, (text) => {
      const payload = JSON.parse(Buffer.from(text.slice('cursor='.length), 'base64url').toString()) as { s: string; v: unknown[] };
      const first = typeof payload.v[0] === 'string' && payload.v[0].startsWith('0000') ? '2001-01-01T00:00:00.000Z' : '100';
      return `cursor=${cursor(payload.s, [first, 1])}`;
    });
    expect((await send({ path: inRange })).status).toBe(200);
  });
});
