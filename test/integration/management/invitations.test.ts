// Invitations: the token shown once and stored hashed, accept/decline by the invited user only,
// revocation, conflicts, and expiry under a clock the test controls.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, createUserToken, type TestCredentials } from '../../helpers/auth.ts';
import { call, detailPaths } from './support.ts';

let app: TestApp;
let now = new Date('2026-11-23T10:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const users: Record<string, TestCredentials> = {};

beforeAll(async () => {
  app = await startTestApp({ clock: () => now });
  for (const name of ['olivia', 'adam', 'mia', 'ivan', 'eve']) {
    users[name] = await createUserToken(app, { user: name, permissions: ['read:teams', 'write:teams'] });
  }
  users.outsider = await createUserToken(app, { user: 'ivan', permissions: ['read:teams', 'write:teams'], org: 'other-org' });
});

afterAll(async () => {
  await app.close();
});

const as = (name: string) => users[name]!;
let counter = 0;

async function team(): Promise<number> {
  const { body } = await call(as('olivia'), 'POST', '/api/teams', { name: 'Team', slug: `team-${++counter}` });
  await app.db.prisma.teamMember.createMany({
    data: [
      { team_id: body.data.id, user_id: 'adam', role: 'admin' },
      { team_id: body.data.id, user_id: 'mia', role: 'member' },
    ],
  });
  return body.data.id;
}

const invite = (teamId: number, body: Record<string, unknown> = {}, by = 'olivia') =>
  call(as(by), 'POST', `/api/teams/${teamId}/invitations`, { invited_email: 'ivan@example.com', invited_user_id: 'ivan', ...body });

describe('POST /api/teams/{id}/invitations', () => {
  it('creates a pending invitation for 7 days whose token is shown once and stored hashed', async () => {
    const id = await team();
    const { status, body } = await invite(id, { role: 'admin' });
    expect(status).toBe(201);
    expect(body.data).toEqual({
      id: expect.any(Number),
      team_id: id,
      invited_email: 'ivan@example.com',
      invited_user_id: 'ivan',
      invited_by: 'olivia',
      role: 'admin',
      status: 'pending',
      token: expect.stringMatching(/^vdi_[A-Za-z0-9_-]{43}$/),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 7 * DAY).toISOString(),
    });
    const stored = await app.db.prisma.teamInvitation.findUniqueOrThrow({ where: { id: body.data.id } });
    expect(stored.token_hash).toBe(createHash('sha256').update(body.data.token).digest('hex'));
    const list = await call(as('mia'), 'GET', `/api/teams/${id}/invitations`);
    const { token: _token, ...shown } = body.data;
    expect(list.body.data).toEqual([shown]);
    expect(JSON.stringify(list.body)).not.toContain(body.data.token);
  });

  it('defaults the role to member', async () => {
    expect((await invite(await team())).body.data.role).toBe('member');
  });

  it.each([
    [{ invited_email: 'not-an-email' }, ['body.invited_email']],
    [{ invited_user_id: '' }, ['body.invited_user_id']],
    [{ invited_user_id: 'u'.repeat(201) }, ['body.invited_user_id']],
    // Ids the member routes could not take in their path: /api/teams/{id}/members/{user_id}.
    [{ invited_user_id: 'auth0/ivan' }, ['body.invited_user_id']],
    [{ invited_user_id: '.' }, ['body.invited_user_id']],
    [{ invited_user_id: '..' }, ['body.invited_user_id']],
    [{ role: 'owner' }, ['body.role']],
    [{ token: 'mine' }, ['body.token']],
  ])('refuses %j', async (body, paths) => {
    const response = await invite(await team(), body);
    expect(response.status).toBe(400);
    expect(detailPaths(response.body)).toEqual(paths);
  });

  it('takes any other user id, and the member it becomes is addressable on every member route', async () => {
    const id = await team();
    const userId = 'auth0|Ivan Smith?#%&+=..';
    const weird = await createUserToken(app, { user: userId, permissions: ['read:teams', 'write:teams'] });
    const { status, body } = await invite(id, { invited_user_id: userId });
    expect(status).toBe(201);
    expect((await call(weird, 'POST', '/api/invitations/accept', { token: body.data.token })).status).toBe(200);
    const path = `/api/teams/${id}/members/${encodeURIComponent(userId)}`;
    const promoted = await call(as('olivia'), 'PATCH', path, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data).toMatchObject({ user_id: userId, role: 'admin' });
    const demoted = await as('olivia').graphql(`mutation($u: String!) { updateTeamMember(team: ${id}, user_id: $u, role: "member") { role } }`, {
      u: userId,
    });
    expect(demoted.body.data).toEqual({ updateTeamMember: { role: 'member' } });
    expect((await call(as('olivia'), 'DELETE', path)).status).toBe(204);
    expect((await call(weird, 'GET', `/api/teams/${id}`)).status).toBe(404);
  });

  it('refuses the same ids over GraphQL', async () => {
    const id = await team();
    const refused = await as('olivia').graphql(
      `mutation { createInvitation(team: ${id}, invited_email: "ivan@example.com", invited_user_id: "auth0/ivan") { id } }`,
    );
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'invited_user_id' }] });
  });

  it('lets owners and admins invite, not members', async () => {
    const id = await team();
    expect((await invite(id, {}, 'adam')).status).toBe(201);
    expect((await invite(id, { invited_user_id: 'eve' }, 'mia')).status).toBe(403);
  });

  it('409s a second pending invitation for the same user, and a member', async () => {
    const id = await team();
    expect((await invite(id)).status).toBe(201);
    const again = await invite(id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect((await invite(id, { invited_user_id: 'mia' })).status).toBe(409);
  });
});

describe('accept and decline', () => {
  it('makes the invited user a member with the invitation’s role', async () => {
    const id = await team();
    const { body } = await invite(id, { role: 'admin' });
    const accepted = await call(as('ivan'), 'POST', '/api/invitations/accept', { token: body.data.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ id: body.data.id, status: 'accepted' });
    expect(accepted.body.data.token).toBeUndefined();
    const members = await call(as('ivan'), 'GET', `/api/teams/${id}/members?limit=10`);
    expect(members.body.data).toContainEqual(expect.objectContaining({ user_id: 'ivan', role: 'admin' }));
    expect((await call(as('ivan'), 'POST', '/api/invitations/accept', { token: body.data.token })).status).toBe(409);
    expect((await invite(id)).status).toBe(409);
  });

  it('refuses anyone but the invited user, and an unknown token', async () => {
    const id = await team();
    const { body } = await invite(id);
    const refused = await call(as('eve'), 'POST', '/api/invitations/accept', { token: body.data.token });
    expect(refused.status).toBe(403);
    expect((await call(as('outsider'), 'POST', '/api/invitations/accept', { token: body.data.token })).status).toBe(404);
    expect((await call(as('ivan'), 'POST', '/api/invitations/accept', { token: 'vdi_nothing' })).status).toBe(404);
    const missing = await call(as('ivan'), 'POST', '/api/invitations/accept', {});
    expect(detailPaths(missing.body)).toEqual(['body.token']);
    expect((await app.db.prisma.teamInvitation.findUniqueOrThrow({ where: { id: body.data.id } })).status).toBe('pending');
  });

  it('declines: then it cannot be accepted', async () => {
    const id = await team();
    const { body } = await invite(id);
    const declined = await call(as('ivan'), 'POST', '/api/invitations/decline', { token: body.data.token });
    expect(declined.status).toBe(200);
    expect(declined.body.data.status).toBe('declined');
    expect((await call(as('ivan'), 'POST', '/api/invitations/accept', { token: body.data.token })).status).toBe(409);
    expect((await call(as('ivan'), 'GET', `/api/teams/${id}`)).status).toBe(404);
  });

  it('expires after 7 days by the app’s clock: it reads expired and cannot be accepted', async () => {
    const id = await team();
    const { body } = await invite(id);
    const start = now;
    try {
      now = new Date(start.getTime() + 7 * DAY - 1);
      const list = await call(as('olivia'), 'GET', `/api/teams/${id}/invitations`);
      expect(list.body.data[0].status).toBe('pending');
      now = new Date(start.getTime() + 7 * DAY);
      expect((await call(as('olivia'), 'GET', `/api/teams/${id}/invitations`)).body.data[0].status).toBe('expired');
      const late = await call(as('ivan'), 'POST', '/api/invitations/accept', { token: body.data.token });
      expect(late.status).toBe(409);
      expect(late.body.error.message).toContain('expired');
      // An expired invitation no longer blocks a new one.
      expect((await invite(id)).status).toBe(201);
    } finally {
      now = start;
    }
  });
});

describe('DELETE /api/teams/{id}/invitations/{invitation_id}', () => {
  it('revokes a pending invitation (owner or admin), which then cannot be accepted', async () => {
    const id = await team();
    const { body } = await invite(id);
    expect((await call(as('mia'), 'DELETE', `/api/teams/${id}/invitations/${body.data.id}`)).status).toBe(403);
    expect((await call(as('adam'), 'DELETE', `/api/teams/${id}/invitations/${body.data.id}`)).status).toBe(204);
    expect((await call(as('adam'), 'DELETE', `/api/teams/${id}/invitations/${body.data.id}`)).status).toBe(409);
    const list = await call(as('olivia'), 'GET', `/api/teams/${id}/invitations`);
    expect(list.body.data[0].status).toBe('revoked');
    expect((await call(as('ivan'), 'POST', '/api/invitations/accept', { token: body.data.token })).status).toBe(409);
  });

  it('404s an invitation of another team', async () => {
    const first = await team();
    const second = await team();
    const { body } = await invite(first);
    expect((await call(as('olivia'), 'DELETE', `/api/teams/${second}/invitations/${body.data.id}`)).status).toBe(404);
  });
});

describe('GraphQL and API keys', () => {
  it('invites and accepts over GraphQL', async () => {
    const id = await team();
    const created = await as('olivia').graphql(
      `mutation { createInvitation(team: ${id}, invited_email: "eve@example.com", invited_user_id: "eve") { id status token } }`,
    );
    expect(created.body.errors).toBeUndefined();
    const { token } = created.body.data!.createInvitation as { token: string };
    const accepted = await as('eve').graphql('mutation($token: String!) { acceptInvitation(token: $token) { status role } }', { token });
    expect(accepted.body.data).toEqual({ acceptInvitation: { status: 'accepted', role: 'member' } });
    const listed = await as('eve').graphql(`{ teamInvitations(team: ${id}) { data { status } } }`);
    expect(listed.body.data).toEqual({ teamInvitations: { data: [{ status: 'accepted' }] } });
  });

  it('lets an API key own a team as its own subject', async () => {
    const key = await createApiKeyAndToken(app, { permissions: ['read:teams', 'write:teams'] });
    const { status, body } = await call(key, 'POST', '/api/teams', { name: 'Bots', slug: 'bots' });
    expect(status).toBe(201);
    expect(body.data.created_by).toBe(key.clientId);
  });
});
