// Teams and members with user tokens: visibility to members only, roles, and the last owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createUserToken, type TestCredentials } from '../../helpers/auth.ts';
import { call, detailPaths } from './support.ts';

let app: TestApp;
const TEAM_PERMISSIONS = ['read:teams', 'write:teams'];
const users: Record<string, TestCredentials> = {};

beforeAll(async () => {
  app = await startTestApp();
  for (const name of ['olivia', 'adam', 'mia', 'nora', 'otto']) {
    users[name] = await createUserToken(app, { user: name, permissions: TEAM_PERMISSIONS });
  }
  users.stranger = await createUserToken(app, { user: 'stranger', permissions: TEAM_PERMISSIONS, org: 'other-org' });
});

afterAll(async () => {
  await app.close();
});

const as = (name: string) => users[name]!;
let counter = 0;

/** A team owned by olivia with adam as admin and mia as member (added directly, as accepting would). */
async function team(): Promise<number> {
  const { status, body } = await call(as('olivia'), 'POST', '/api/teams', { name: 'Research', slug: `research-${++counter}` });
  expect(status).toBe(201);
  await app.db.prisma.teamMember.createMany({
    data: [
      { team_id: body.data.id, user_id: 'adam', role: 'admin' },
      { team_id: body.data.id, user_id: 'mia', role: 'member' },
    ],
  });
  return body.data.id;
}

const roles = async (teamId: number) =>
  Object.fromEntries(
    (await app.db.prisma.teamMember.findMany({ where: { team_id: teamId } })).map((member) => [member.user_id, member.role]),
  );

describe('POST /api/teams', () => {
  it('creates a team whose creator is its owner and only member', async () => {
    const { status, body } = await call(as('nora'), 'POST', '/api/teams', { name: 'Deal flow', slug: 'deal-flow' });
    expect(status).toBe(201);
    expect(body.data).toEqual({
      id: expect.any(Number),
      name: 'Deal flow',
      slug: 'deal-flow',
      created_by: 'nora',
      is_active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      member_count: 1,
    });
    const members = await call(as('nora'), 'GET', `/api/teams/${body.data.id}/members`);
    expect(members.body.data).toEqual([
      { id: expect.any(Number), team_id: body.data.id, user_id: 'nora', role: 'owner', joined_at: expect.any(String) },
    ]);
  });

  it.each([
    [{}, ['body.name', 'body.slug']],
    [{ name: 'x', slug: '-x' }, ['body.slug']],
    [{ name: 'x', slug: 'x-' }, ['body.slug']],
    [{ name: 'x', slug: 'X' }, ['body.slug']],
    [{ name: 'x', slug: 'a'.repeat(101) }, ['body.slug']],
    [{ name: '', slug: 'ok' }, ['body.name']],
    [{ name: 'n'.repeat(201), slug: 'ok' }, ['body.name']],
    [{ name: 'x', slug: 'ok', owner: 'me' }, ['body.owner']],
  ])('refuses %j', async (body, paths) => {
    const response = await call(as('nora'), 'POST', '/api/teams', body);
    expect(response.status).toBe(400);
    expect(detailPaths(response.body)).toEqual(paths);
  });

  it('accepts one-character slugs and 409s a slug taken in the organisation', async () => {
    expect((await call(as('nora'), 'POST', '/api/teams', { name: 'x', slug: 'x' })).status).toBe(201);
    expect((await call(as('otto'), 'POST', '/api/teams', { name: 'x', slug: 'x' })).status).toBe(409);
    expect((await call(as('stranger'), 'POST', '/api/teams', { name: 'x', slug: 'x' })).status).toBe(201);
  });
});

describe('visibility', () => {
  it('lists only the caller’s teams; a non-member gets 404 on every verb', async () => {
    const id = await team();
    const mine = await call(as('mia'), 'GET', '/api/teams?limit=2000');
    expect(mine.body.data.map((row: { id: number }) => row.id)).toContain(id);
    const others = await call(as('otto'), 'GET', '/api/teams?limit=2000');
    expect(others.body.data.map((row: { id: number }) => row.id)).not.toContain(id);
    for (const caller of ['otto', 'stranger']) {
      expect((await call(as(caller), 'GET', `/api/teams/${id}`)).status).toBe(404);
      expect((await call(as(caller), 'PATCH', `/api/teams/${id}`, { name: 'mine now' })).status).toBe(404);
      expect((await call(as(caller), 'DELETE', `/api/teams/${id}`)).status).toBe(404);
      expect((await call(as(caller), 'GET', `/api/teams/${id}/members`)).status).toBe(404);
      expect((await call(as(caller), 'PATCH', `/api/teams/${id}/members/mia`, { role: 'admin' })).status).toBe(404);
      expect((await call(as(caller), 'DELETE', `/api/teams/${id}/members/mia`)).status).toBe(404);
      expect((await call(as(caller), 'GET', `/api/teams/${id}/invitations`)).status).toBe(404);
    }
    expect((await call(as('olivia'), 'GET', `/api/teams/${id}`)).body.data).toMatchObject({ name: 'Research', member_count: 3 });
    expect(await roles(id)).toEqual({ olivia: 'owner', adam: 'admin', mia: 'member' });
  });
});

describe('PATCH and DELETE /api/teams/{id}', () => {
  it('lets owners and admins rename, not members', async () => {
    const id = await team();
    expect((await call(as('adam'), 'PATCH', `/api/teams/${id}`, { name: 'Renamed' })).body.data.name).toBe('Renamed');
    const refused = await call(as('mia'), 'PATCH', `/api/teams/${id}`, { name: 'Mine' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await call(as('olivia'), 'GET', `/api/teams/${id}`)).body.data.name).toBe('Renamed');
  });

  it('lets only the owner delete; the team is then gone for everyone', async () => {
    const id = await team();
    expect((await call(as('adam'), 'DELETE', `/api/teams/${id}`)).status).toBe(403);
    expect((await call(as('olivia'), 'DELETE', `/api/teams/${id}`)).status).toBe(204);
    expect((await call(as('olivia'), 'GET', `/api/teams/${id}`)).status).toBe(404);
    expect((await call(as('mia'), 'GET', `/api/teams/${id}/members`)).status).toBe(404);
    expect((await app.db.prisma.team.findUniqueOrThrow({ where: { id } })).is_active).toBe(false);
  });
});

describe('members', () => {
  it('lets admins move members between admin and member, but not make owners', async () => {
    const id = await team();
    const promoted = await call(as('adam'), 'PATCH', `/api/teams/${id}/members/mia`, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data).toMatchObject({ team_id: id, user_id: 'mia', role: 'admin' });
    expect((await call(as('adam'), 'PATCH', `/api/teams/${id}/members/mia`, { role: 'owner' })).status).toBe(403);
    expect((await call(as('adam'), 'PATCH', `/api/teams/${id}/members/olivia`, { role: 'member' })).status).toBe(403);
    expect((await call(as('mia'), 'PATCH', `/api/teams/${id}/members/adam`, { role: 'member' })).status).toBe(200);
    expect(await roles(id)).toEqual({ olivia: 'owner', adam: 'member', mia: 'admin' });
  });

  it('refuses a role that does not exist and a member that is not there', async () => {
    const id = await team();
    const bad = await call(as('olivia'), 'PATCH', `/api/teams/${id}/members/mia`, { role: 'boss' });
    expect(bad.status).toBe(400);
    expect(detailPaths(bad.body)).toEqual(['body.role']);
    expect((await call(as('olivia'), 'PATCH', `/api/teams/${id}/members/nobody`, { role: 'admin' })).status).toBe(404);
  });

  it('refuses a user id no member can have: one with a "/" (400 at path.user_id)', async () => {
    const id = await team();
    for (const method of ['PATCH', 'DELETE']) {
      const refused = await call(as('olivia'), method, `/api/teams/${id}/members/auth0%2Fmia`, method === 'PATCH' ? { role: 'admin' } : undefined);
      expect(refused.status).toBe(400);
      expect(detailPaths(refused.body)).toEqual(['path.user_id']);
    }
  });

  it('keeps a last owner: no demotion, no leaving (409), until another owner exists', async () => {
    const id = await team();
    const demote = await call(as('olivia'), 'PATCH', `/api/teams/${id}/members/olivia`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('CONFLICT');
    expect((await call(as('olivia'), 'DELETE', `/api/teams/${id}/members/olivia`)).status).toBe(409);
    expect((await call(as('olivia'), 'PATCH', `/api/teams/${id}/members/adam`, { role: 'owner' })).status).toBe(200);
    expect((await call(as('olivia'), 'DELETE', `/api/teams/${id}/members/olivia`)).status).toBe(204);
    expect(await roles(id)).toEqual({ adam: 'owner', mia: 'member' });
  });

  it('lets a member leave, admins remove members, and only owners remove owners', async () => {
    const id = await team();
    await app.db.prisma.teamMember.create({ data: { team_id: id, user_id: 'otto', role: 'member' } });
    expect((await call(as('mia'), 'DELETE', `/api/teams/${id}/members/otto`)).status).toBe(403);
    expect((await call(as('adam'), 'DELETE', `/api/teams/${id}/members/otto`)).status).toBe(204);
    expect((await call(as('adam'), 'DELETE', `/api/teams/${id}/members/olivia`)).status).toBe(403);
    expect((await call(as('mia'), 'DELETE', `/api/teams/${id}/members/mia`)).status).toBe(204);
    expect((await call(as('mia'), 'GET', `/api/teams/${id}`)).status).toBe(404);
    expect(await roles(id)).toEqual({ olivia: 'owner', adam: 'admin' });
  });

  it('lets exactly one of two owners leave when both try at once', async () => {
    const id = await team();
    await call(as('olivia'), 'PATCH', `/api/teams/${id}/members/adam`, { role: 'owner' });
    const [first, second] = await Promise.all([
      call(as('olivia'), 'DELETE', `/api/teams/${id}/members/olivia`),
      call(as('adam'), 'DELETE', `/api/teams/${id}/members/adam`),
    ]);
    expect([first.status, second.status].sort()).toEqual([204, 409]);
    expect(Object.values(await roles(id))).toContain('owner');
  });
});

describe('GraphQL', () => {
  it('runs the same rules', async () => {
    const created = await as('nora').graphql('mutation { createTeam(name: "G", slug: "graphql-team") { id member_count created_by } }');
    expect(created.body.errors).toBeUndefined();
    const { id } = created.body.data!.createTeam as { id: number };
    expect(created.body.data!.createTeam).toEqual({ id, member_count: 1, created_by: 'nora' });
    const read = await as('nora').graphql(`{ teams { data { id } } team(id: ${id}) { slug } teamMembers(team: ${id}) { data { user_id role } } }`);
    expect(read.body.data).toMatchObject({ team: { slug: 'graphql-team' }, teamMembers: { data: [{ user_id: 'nora', role: 'owner' }] } });
    expect((await as('otto').graphql(`{ team(id: ${id}) { id } }`)).body.data).toEqual({ team: null });
    const leave = await as('nora').graphql(`mutation { removeTeamMember(team: ${id}, user_id: "nora") }`);
    expect(leave.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const invalid = await as('nora').graphql('mutation { createTeam(name: "", slug: "ok") { id } }');
    expect(invalid.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'name' }] });
  });
});
