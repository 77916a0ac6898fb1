// Every management route × {own organisation, another organisation, no permission, read-only},
// generated from the route table: a route added later without a row here fails the first test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { routes, type Route } from '../../../src/rest/routes.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ALL_PERMISSIONS, createUserToken, type TestCredentials } from '../../helpers/auth.ts';
import { call } from './support.ts';

const MANAGEMENT = new Set(['ecosystems', 'landscapes', 'teams', 'invitations']);
const managementRoutes = routes.filter((route) => MANAGEMENT.has(route.id.split('.')[0]!));

let app: TestApp;
let owner: TestCredentials;
let outsider: TestCredentials;
let unprivileged: TestCredentials;
let readOnly: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 10 });
  owner = await createUserToken(app, { user: 'olivia', permissions: ALL_PERMISSIONS });
  outsider = await createUserToken(app, { user: 'olivia', permissions: ALL_PERMISSIONS, org: 'other-org' });
  unprivileged = await createUserToken(app, { user: 'olivia', permissions: ['read:entities'] });
  // read:entities too: an ecosystem's entities are entity records.
  readOnly = await createUserToken(app, { user: 'olivia', permissions: ['read:ecosystems', 'read:teams', 'read:entities'] });
});

afterAll(async () => {
  await app.close();
});

interface Fixture {
  ecosystem: number;
  landscape: number;
  team: number;
  invitation: number;
  /** A pending invitation of olivia's to a team adam owns. */
  token: string;
}

let counter = 0;

/** Fresh records of olivia's organisation for one request. */
async function fixture(): Promise<Fixture> {
  const n = ++counter;
  const ecosystem = (await call(owner, 'POST', '/api/ecosystems', { slug: `b-${n}`, name: 'E', filter: 'is_company:true' })).body.data.id;
  const landscape = (await call(owner, 'POST', `/api/ecosystems/${ecosystem}/landscapes`, { name: 'L' })).body.data.id;
  const team = (await call(owner, 'POST', '/api/teams', { name: 'T', slug: `t-${n}` })).body.data.id;
  await app.db.prisma.teamMember.create({ data: { team_id: team, user_id: 'mia', role: 'member' } });
  const invitation = (
    await call(owner, 'POST', `/api/teams/${team}/invitations`, { invited_email: 'ivan@example.com', invited_user_id: 'ivan' })
  ).body.data.id;
  const adam = await createUserToken(app, { user: 'adam', permissions: ALL_PERMISSIONS });
  const other = (await call(adam, 'POST', '/api/teams', { name: 'A', slug: `a-${n}` })).body.data.id;
  const token = (
    await call(adam, 'POST', `/api/teams/${other}/invitations`, { invited_email: 'olivia@example.com', invited_user_id: 'olivia' })
  ).body.data.token;
  return { ecosystem, landscape, team, invitation, token };
}

/** The path with the fixture's ids; a `{id}` is the record of the route's own resource. */
function pathOf(route: Route, records: Fixture): string {
  const resource = route.id.split('.')[0]!;
  const ids: Record<string, string> = {
    ecosystem: String(records.ecosystem),
    team: String(records.team),
    user_id: 'mia',
    id: String({ ecosystems: records.ecosystem, landscapes: records.landscape, teams: records.team, invitations: records.invitation }[resource]),
  };
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]!);
}

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
};

const SUCCESS = { created: 201, deleted: 204 } as Record<string, number>;
const successOf = (route: Route): number => SUCCESS[route.kind] ?? 200;
const needsBody = (route: Route): boolean => ['POST', 'PUT', 'PATCH'].includes(route.method);

async function attempt(route: Route, credentials: TestCredentials) {
  const records = await fixture();
  return call(credentials, route.method, pathOf(route, records), needsBody(route) ? BODIES[route.id]!(records) : undefined);
}

const table = managementRoutes.map((route) => [`${route.method} ${route.path}`, route] as const);

it('covers the management routes, each with a body where it takes one', () => {
  expect(managementRoutes.length).toBeGreaterThanOrEqual(24);
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

  it('is 403 without the resource’s permissions', async () => {
    const response = await attempt(route, unprivileged);
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('FORBIDDEN');
  });

  it('reads but does not write with read permissions only', async () => {
    const response = await attempt(route, readOnly);
    expect(response.status).toBe(route.method === 'GET' ? 200 : 403);
  });
});
