// Every route of an organisation-owned resource (one that declares a tenant rule) × {own organisation,
// another organisation, without the resource's permissions, with its read permission only}, generated
// from the declarations and the route table: a resource or route added later is in the table, and
// without a row here for its body or path it fails the first test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootFields } from '../../../src/auth/authorize.ts';
import { ANY_CALLER, PERMISSIONS, rootFieldRule } from '../../../src/auth/permissions.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { loadOperations } from '../../../src/rest/operations.ts';
import { routes, type Route } from '../../../src/rest/routes.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { declaredResources, type Resource } from '../../../src/schema/resource.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ALL_PERMISSIONS, createUserToken, type TestCredentials } from '../../helpers/auth.ts';
import { call } from './support.ts';

const schema = getSchema();
const operations = loadOperations(schema);
const owned = new Map(declaredResources().filter((resource) => resource.tenant).map((resource) => [resource.name, resource]));
const managementRoutes = routes.filter((route) => owned.has(route.id.split('.')[0]!));
const resourceOf = (route: Route): Resource => owned.get(route.id.split('.')[0]!)!;

/** Whether the route's own rule lets any valid token through (a caller's own API keys). */
const anyCaller = (route: Route): boolean =>
  rootFields(operations.get(route.operation)!).every(({ key }) => rootFieldRule(schema, key) === ANY_CALLER);

/** The same user, holding every permission but the resource's own (or but its write permission); one token each. */
const withoutPermissions = (resource: Resource, keep: 'nothing' | 'read'): Promise<TestCredentials> => {
  const key = `${resource.name}:${keep}`;
  let token = limited.get(key);
  if (!token) {
    token = createUserToken(app, {
      user: 'olivia',
      permissions: PERMISSIONS.filter((name) => name !== resource.write && (keep === 'read' || name !== resource.read)),
    });
    limited.set(key, token);
  }
  return token;
};
const limited = new Map<string, Promise<TestCredentials>>();

let app: TestApp;
let owner: TestCredentials;
let outsider: TestCredentials;
/** The owner of the team whose invitation of olivia's the fixtures hold. */
let adam: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 10 });
  owner = await createUserToken(app, { user: 'olivia', permissions: ALL_PERMISSIONS });
  outsider = await createUserToken(app, { user: 'olivia', permissions: ALL_PERMISSIONS, org: 'other-org' });
  adam = await createUserToken(app, { user: 'adam', permissions: ALL_PERMISSIONS });
});

afterAll(async () => {
  await app.close();
});

interface Fixture {
  ecosystem: number;
  landscape: number;
  team: number;
  invitation: number;
  apiKey: number;
  webhook: number;
  /** A delivery of the webhook's (a test event's). */
  delivery: number;
  /** A pending invitation of olivia's to a team adam owns. */
  token: string;
  /** A queued export, made only for the exports' routes (an organisation may queue 20). */
  export?: number;
}

let counter = 0;

/** Fresh records of olivia's organisation for one request. */
async function fixture(route: Route): Promise<Fixture> {
  const n = ++counter;
  const ecosystem = (await call(owner, 'POST', '/api/ecosystems', { slug: `b-${n}`, name: 'E', filter: 'is_company:true' })).body.data.id;
  const landscape = (await call(owner, 'POST', `/api/ecosystems/${ecosystem}/landscapes`, { name: 'L' })).body.data.id;
  const team = (await call(owner, 'POST', '/api/teams', { name: 'T', slug: `t-${n}` })).body.data.id;
  await app.db.prisma.teamMember.create({ data: { team_id: team, user_id: 'mia', role: 'member' } });
  const invitation = (
    await call(owner, 'POST', `/api/teams/${team}/invitations`, { invited_email: 'ivan@example.com', invited_user_id: 'ivan' })
  ).body.data.id;
  const other = (await call(adam, 'POST', '/api/teams', { name: 'A', slug: `a-${n}` })).body.data.id;
  const token = (
    await call(adam, 'POST', `/api/teams/${other}/invitations`, { invited_email: 'olivia@example.com', invited_user_id: 'olivia' })
  ).body.data.token;
  const apiKey = (await call(owner, 'POST', '/api/api-keys', { name: `k-${n}`, permissions: ['read:entities'] })).body.data.id;
  // A `.invalid` host never resolves: deliveries to it fail, nothing leaves the machine.
  const webhook = (await call(owner, 'POST', '/api/webhooks', { url: `https://hooks-${n}.example.invalid/`, events: ['entity.created'] })).body.data.id;
  const delivery = (await call(owner, 'POST', `/api/webhooks/${webhook}/test`)).body.data.id;
  const exported =
    route.id.startsWith('exports.') ? (await call(owner, 'POST', '/api/exports', { resource: 'entities', format: 'ndjson' })).body.data.id : undefined;
  return { ecosystem, landscape, team, invitation, apiKey, webhook, delivery, token, export: exported };
}

/** The path with the fixture's ids; a `{id}` is the record of the route's own resource. */
function pathOf(route: Route, records: Fixture): string {
  const resource = route.id.split('.')[0]!;
  const ids: Record<string, string> = {
    ecosystem: String(records.ecosystem),
    team: String(records.team),
    webhook: String(records.webhook),
    user_id: 'mia',
    id: String(
      route.id === 'webhooks.RetryWebhookDelivery'
        ? records.delivery
        : { ecosystems: records.ecosystem, landscapes: records.landscape, teams: records.team, invitations: records.invitation, 'api-keys': records.apiKey, webhooks: records.webhook, exports: records.export }[
            resource
          ],
    ),
  };
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]!) + (QUERIES[route.id] ?? '');
}

/** The required query parameters of a route. */
const QUERIES: Record<string, string> = { 'usage.UsageTimeseries': '?start_date=2026-01-01&end_date=2026-01-31' };

/** A body each route accepts from the records' owner. */
const BODIES: Record<string, (records: Fixture) => unknown> = {
  'ecosystems.CreateEcosystem': () => ({ slug: `new-${++counter}`, name: 'N', filter: 'is_company:true' }),
  'ecosystems.UpdateEcosystem': () => ({ name: 'Renamed' }),
  'landscapes.CreateLandscape': () => ({ name: 'New' }),
  'landscapes.SetLandscapeEntities': () => ({ entity_ids: [] }),
  'teams.CreateTeam': () => ({ name: 'New', slug: `new-team-${++counter}` }),
  'teams.UpdateTeam': () => ({ name: 'Renamed' }),
  'teams.UpdateTeamMember': () => ({ role: 'admin' }),
  'invitations.CreateInvitation': () => ({ invited_email: 'x@example.com', invited_user_id: `user-${++counter}` }),
  'invitations.AcceptInvitation': (records) => ({ token: records.token }),
  'invitations.DeclineInvitation': (records) => ({ token: records.token }),
  'api-keys.CreateApiKey': () => ({ name: 'New', permissions: ['read:entities'] }),
  'webhooks.CreateWebhook': () => ({ url: 'https://hooks.example.invalid/new', events: ['entity.updated'] }),
  'webhooks.UpdateWebhook': () => ({ description: 'Renamed' }),
  'exports.CreateExport': () => ({ resource: 'entities', format: 'ndjson' }),
  // These take no body.
  'webhooks.TestWebhook': () => undefined,
  'webhooks.RetryWebhookDelivery': () => undefined,
};

const SUCCESS = { created: 201, accepted: 202, deleted: 204 } as Record<string, number>;
const successOf = (route: Route): number => SUCCESS[route.kind] ?? 200;
const needsBody = (route: Route): boolean => ['POST', 'PUT', 'PATCH'].includes(route.method);

/** The records the GET routes read: a read changes none, so they need no fresh ones each. */
const readFixtures = new Map<string, Promise<Fixture>>();

async function attempt(route: Route, credentials: TestCredentials) {
  const group = route.id.startsWith('exports.') ? 'exports' : 'others';
  if (route.method === 'GET' && !readFixtures.has(group)) readFixtures.set(group, fixture(route));
  const records = await (route.method === 'GET' ? readFixtures.get(group)! : fixture(route));
  return call(credentials, route.method, pathOf(route, records), needsBody(route) ? BODIES[route.id]!(records) : undefined);
}

const table = managementRoutes.map((route) => [`${route.method} ${route.path}`, route] as const);

it('covers every route of the organisation-owned resources, each with a body where it takes one', () => {
  expect([...owned.keys()].sort()).toEqual(['api-keys', 'ecosystems', 'exports', 'invitations', 'landscapes', 'teams', 'usage', 'webhooks']);
  expect(managementRoutes.length).toBeGreaterThanOrEqual(28);
  for (const route of managementRoutes) if (needsBody(route)) expect(BODIES, route.id).toHaveProperty([route.id]);
});

describe.each(table)('%s', (_name, route) => {
  it('succeeds for the records’ owner', async () => {
    const response = await attempt(route, owner);
    expect(response.status, JSON.stringify(response.body)).toBe(successOf(route));
  });

  it('is 404 for another organisation where it names a record, never 403', async () => {
    const response = await attempt(route, outsider);
    const namesRecord = route.path.includes('{') || route.path.startsWith('/api/invitations/');
    expect(response.status).toBe(namesRecord ? 404 : successOf(route));
  });

  it('is 403 without the resource’s permissions (unless its rule lets any caller through)', async () => {
    const response = await attempt(route, await withoutPermissions(resourceOf(route), 'nothing'));
    expect(response.status).toBe(anyCaller(route) ? successOf(route) : 403);
    if (!anyCaller(route)) expect(response.body.error.code).toBe('FORBIDDEN');
  });

  it('reads but does not write with the read permission only', async () => {
    const response = await attempt(route, await withoutPermissions(resourceOf(route), 'read'));
    expect(response.status).toBe(route.method === 'GET' || anyCaller(route) ? successOf(route) : 403);
  });
});
