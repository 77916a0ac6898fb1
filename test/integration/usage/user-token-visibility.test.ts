// docs/usage.md, "Who sees what", the user token rows: a user token with read:usage reads its own
// client's series (for a `token:user` token, the user itself: its own requests, counted), and another
// client's only with admin:api-keys (403 without, on both transports). The identity provider's users,
// who share their application's client, are in test/integration/auth/issuer-namespaces.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, createUserToken, type TestCredentials } from '../../helpers/auth.ts';
import { seriesTotals, waitForSeries, type UsageRow } from './support.ts';

let app: TestApp;
let machine: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ env: { USAGE_FLUSH_INTERVAL_MS: '200' } });
  machine = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  // Another client with requests of its own in the organisation.
  for (let i = 0; i < 2; i += 1) await (await machine.fetch('/api/entities')).arrayBuffer();
});

afterAll(async () => {
  await app.close();
});

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const RANGE = `start_date=${day(-1)}&end_date=${day(1)}`;

it('a user token with read:usage sees its own requests, without client_id or with its own', async () => {
  const user = await createUserToken(app, { user: 'usage-reader', permissions: ['read:usage'] });
  for (let i = 0; i < 3; i += 1) await (await user.fetch('/api/filters/location/values?q=ber')).arrayBuffer();
  const own = await waitForSeries(user, RANGE, (rows) => (seriesTotals(rows).get('GET /api/filters/location/values')?.requests ?? 0) >= 3);
  expect(seriesTotals(own).get('GET /api/filters/location/values')?.requests).toBe(3);
  // Only its own: the other client's GET /api/entities is not in it.
  expect(seriesTotals(own).has('GET /api/entities')).toBe(false);

  const explicit = await user.fetch(`/api/usage/timeseries?${RANGE}&client_id=usage-reader`);
  expect(explicit.status).toBe(200);
  expect(seriesTotals(((await explicit.json()) as { data: UsageRow[] }).data).get('GET /api/filters/location/values')?.requests).toBe(3);
});

it("a user token with read:usage asking for another client's usage is FORBIDDEN without admin:api-keys, on both transports", async () => {
  const user = await createUserToken(app, { user: 'usage-curious', permissions: ['read:usage'] });
  const refused = await user.fetch(`/api/usage/timeseries?${RANGE}&client_id=${machine.clientId}`);
  expect(refused.status).toBe(403);
  const { error } = (await refused.json()) as { error: { code: string; message: string } };
  expect(error.code).toBe('FORBIDDEN');
  expect(error.message).toContain('admin:api-keys');
  // The refusal names what the caller may read without it: its own client.
  expect(error.message).toContain('your own client is "usage-curious"');
  const graphql = await user.graphql(
    `{ usageTimeseries(start_date: "${day(-1)}", end_date: "${day(1)}", client_id: "${machine.clientId}") { endpoint request_count } }`,
  );
  // Over GraphQL a field error (docs/graphql-errors.md): 200, the field null, the code and its path.
  expect(graphql.status).toBe(200);
  expect(graphql.body.data).toEqual({ usageTimeseries: null });
  expect(graphql.body.errors?.[0]).toMatchObject({ path: ['usageTimeseries'], extensions: { code: 'FORBIDDEN' } });
});

it("a user token with read:usage and admin:api-keys reads another client's usage in its organisation", async () => {
  const manager = await createUserToken(app, { user: 'usage-manager', permissions: ['read:usage', 'admin:api-keys'] });
  const rows = await waitForSeries(manager, `${RANGE}&client_id=${machine.clientId}`, (found) => (seriesTotals(found).get('GET /api/entities')?.requests ?? 0) >= 2);
  expect(seriesTotals(rows).get('GET /api/entities')?.requests).toBe(2);
});
