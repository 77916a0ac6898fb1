// Team writes racing each other on a real PostgreSQL server, over HTTP. For each scenario the
// outcomes every serial order gives (each request's status and the team's final state) are first
// recorded by running the requests one after another; then:
// - free-running rounds fire the requests together (Promise.all): each round must end in one of
//   those serial outcomes;
// - queued rounds hold the team's rows in a transaction of the test's own, fire the requests one by
//   one, each once the one before is waiting on a lock (or has answered), then let go: they reach the
//   database in that order, so the outcome must be exactly the serial outcome of that order. This
//   pins the case free rounds cannot see: a request that read a role before another request changed
//   it, and acted after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppOnPool, type TestApp } from '../helpers/app.ts';
import { createUserToken, type TestCredentials } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import type { SqlTransaction } from '../../src/db/client.ts';
import { call } from '../integration/management/support.ts';

/** Free-running rounds per scenario; MANAGEMENT_RACE_ROUNDS raises it for a longer hunt. */
const ROUNDS = Number(process.env.MANAGEMENT_RACE_ROUNDS ?? 25);
/** Permutations of a scenario's requests run queued (all of them when there are fewer). */
const QUEUED_ORDERS = 6;

let direct: TestDatabase;
let app: TestApp;
const users: Record<string, TestCredentials> = {};

beforeAll(async () => {
  direct = await createTestDatabase();
  // A pool of its own, larger than the requests of a round: they must meet in the database, not
  // queue for a connection.
  app = await startTestAppOnPool(direct, { url: direct.connection.url!, poolSize: 20 });
  for (const name of ['olivia', 'adam', 'mia', 'ivan']) {
    users[name] = await createUserToken(app, { user: name, permissions: ['read:teams', 'write:teams'] });
  }
});

afterAll(async () => {
  await app?.close();
  await direct?.destroy();
});

const as = (name: string) => users[name]!;

interface Team {
  id: number;
  /** The invitation the setup made, if any. */
  invitation?: { id: number; token: string };
}

type Request = (team: Team) => Promise<number>;

let counter = 0;

/** A team owned by olivia, with `members` added as accepting would, and optionally an invitation. */
async function team(members: Record<string, string>, invite?: { user: string; by: string }): Promise<Team> {
  const created = await call(as('olivia'), 'POST', '/api/teams', { name: 'Race', slug: `race-${++counter}` });
  expect(created.status).toBe(201);
  const id: number = created.body.data.id;
  await direct.prisma.teamMember.createMany({
    data: Object.entries(members).map(([user_id, role]) => ({ team_id: id, user_id, role })),
  });
  if (!invite) return { id };
  const body = { invited_email: `${invite.user}@example.com`, invited_user_id: invite.user };
  const invitation = await call(as(invite.by), 'POST', `/api/teams/${id}/invitations`, body);
  expect(invitation.status).toBe(201);
  return { id, invitation: { id: invitation.body.data.id, token: invitation.body.data.token } };
}

const status = (promise: ReturnType<typeof call>) => promise.then((response) => response.status);

const accept = (user: string): Request => (t) => status(call(as(user), 'POST', '/api/invitations/accept', { token: t.invitation!.token }));
const decline = (user: string): Request => (t) => status(call(as(user), 'POST', '/api/invitations/decline', { token: t.invitation!.token }));
const revoke = (by: string): Request => (t) => status(call(as(by), 'DELETE', `/api/teams/${t.id}/invitations/${t.invitation!.id}`));
const setRole = (by: string, user: string, role: string): Request => (t) =>
  status(call(as(by), 'PATCH', `/api/teams/${t.id}/members/${user}`, { role }));
const remove = (by: string, user: string): Request => (t) => status(call(as(by), 'DELETE', `/api/teams/${t.id}/members/${user}`));
const invite = (by: string, user: string): Request => (t) =>
  status(call(as(by), 'POST', `/api/teams/${t.id}/invitations`, { invited_email: `${user}@example.com`, invited_user_id: user }));
const rename = (by: string, name: string): Request => (t) => status(call(as(by), 'PATCH', `/api/teams/${t.id}`, { name }));
const deleteTeam = (by: string): Request => (t) => status(call(as(by), 'DELETE', `/api/teams/${t.id}`));

/** The requests' statuses and what the team holds afterwards, as one comparable text. */
async function outcome(t: Team, statuses: number[]): Promise<string> {
  const row = await direct.prisma.team.findUniqueOrThrow({ where: { id: t.id }, select: { name: true, is_active: true } });
  const members = await direct.prisma.teamMember.findMany({ where: { team_id: t.id }, orderBy: { user_id: 'asc' } });
  const invitations = await direct.prisma.teamInvitation.findMany({ where: { team_id: t.id }, orderBy: { id: 'asc' } });
  return JSON.stringify({
    statuses,
    team: row,
    members: members.map((member) => `${member.user_id}:${member.role}`),
    invitations: invitations.map((invitation) => `${invitation.invited_user_id} by ${invitation.invited_by}: ${invitation.status}`),
  });
}

function permutations(count: number): number[][] {
  if (count === 0) return [[]];
  return permutations(count - 1).flatMap((rest) =>
    Array.from({ length: count }, (_, at) => [...rest.slice(0, at), count - 1, ...rest.slice(at)]),
  );
}

/** Statuses in the requests' own order, whatever order they ran in. */
async function inOrder(requests: Request[], order: number[], run: (ordered: Request[]) => Promise<number[]>): Promise<number[]> {
  const statuses = await run(order.map((index) => requests[index]!));
  const byRequest: number[] = [];
  order.forEach((index, at) => (byRequest[index] = statuses[at]!));
  return byRequest;
}

async function serially(t: Team, requests: Request[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const request of requests) statuses.push(await request(t));
  return statuses;
}

/**
 * Requests waiting behind the test's transaction: not-granted locks on its transaction id (the first
 * waiter on a row) or on a row of the team tables (those queued behind that first waiter).
 */
async function waiting(sql: SqlTransaction): Promise<number> {
  const [row] = await sql.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM pg_locks
     WHERE NOT granted
       AND (transactionid = (SELECT transactionid FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'transactionid')
         OR (locktype = 'tuple' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND relation IN ('teams'::regclass, 'team_members'::regclass, 'team_invitations'::regclass)))`,
  );
  return row!.waiting;
}

/**
 * Fires `requests` one by one while the test holds the team's rows, each once the one before waits
 * behind them (or has answered), then lets go: the database sees them in this order. PostgreSQL
 * queues waiters on a row version, and updating the team's row (rename, delete) makes a new one,
 * which all the requests queued behind that update then race for: still some serial order, but not
 * necessarily the one sent. So a scenario that updates the team's row has two requests.
 */
async function queued(t: Team, requests: Request[]): Promise<number[]> {
  const fired: Promise<number>[] = [];
  await direct.sql.transaction(async (sql) => {
    await sql.query('SELECT 1 FROM teams WHERE id = $1 FOR UPDATE', [t.id]);
    await sql.query('SELECT 1 FROM team_members WHERE team_id = $1 FOR UPDATE', [t.id]);
    await sql.query('SELECT 1 FROM team_invitations WHERE team_id = $1 FOR UPDATE', [t.id]);
    // Its transaction id is what the first waiter on a row waits for (assigned by now; made sure).
    await sql.query('SELECT pg_current_xact_id()');
    for (const request of requests) {
      const before = await waiting(sql);
      let answered = false;
      fired.push(request(t).finally(() => (answered = true)));
      const deadline = Date.now() + 10_000;
      while (!answered && (await waiting(sql)) <= before) {
        if (Date.now() > deadline) throw new Error('a request neither waited nor answered within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  });
  return Promise.all(fired);
}

interface Scenario {
  name: string;
  setup: () => Promise<Team>;
  requests: Request[];
  /** The statuses serial orders give, written out by hand: the rules the recorded outcomes must follow. */
  serial: number[][];
}

function check({ name, setup, requests, serial: expected }: Scenario): void {
  describe(name, () => {
    /** Outcome by order (`1,0`: the second request, then the first). */
    const serial = new Map<string, string>();

    beforeAll(async () => {
      for (const order of permutations(requests.length)) {
        const t = await setup();
        serial.set(order.join(), await outcome(t, await inOrder(requests, order, (ordered) => serially(t, ordered))));
      }
    }, 120_000);

    it('answers as the rules say when the requests come one after another', () => {
      const statuses = new Set([...serial.values()].map((seen) => JSON.stringify(JSON.parse(seen).statuses)));
      expect([...statuses].sort()).toEqual(expected.map((row) => JSON.stringify(row)).sort());
    });

    it(`ends every one of ${ROUNDS} free-running rounds as some serial order would`, async () => {
      const allowed = [...new Set(serial.values())];
      for (let round = 0; round < ROUNDS; round++) {
        const t = await setup();
        const statuses = await Promise.all(requests.map((request) => request(t)));
        const seen = await outcome(t, statuses);
        expect(allowed, `round ${round} ended ${seen}, which no serial order gives`).toContain(seen);
      }
    }, 120_000);

    it('ends as the serial order the requests reached the database in', async () => {
      for (const order of permutations(requests.length).slice(0, QUEUED_ORDERS)) {
        const t = await setup();
        const seen = await outcome(t, await inOrder(requests, order, (ordered) => queued(t, ordered)));
        expect(seen, `order ${order.join()}`).toBe(serial.get(order.join()));
      }
    }, 120_000);
  });
}

check({
  name: 'accepting and revoking one invitation: exactly one wins',
  setup: () => team({ adam: 'admin' }, { user: 'ivan', by: 'olivia' }),
  requests: [accept('ivan'), revoke('adam')],
  serial: [[200, 409], [409, 204]],
});

check({
  name: 'accepting, declining and revoking one invitation at once',
  setup: () => team({ adam: 'admin' }, { user: 'ivan', by: 'olivia' }),
  requests: [accept('ivan'), decline('ivan'), revoke('adam')],
  serial: [[200, 409, 409], [409, 200, 409], [409, 409, 204]],
});

check({
  name: 'four revokes of one invitation: one 204, three 409',
  setup: () => team({ adam: 'admin' }, { user: 'ivan', by: 'olivia' }),
  requests: [revoke('olivia'), revoke('adam'), revoke('olivia'), revoke('adam')],
  serial: [[204, 409, 409, 409], [409, 204, 409, 409], [409, 409, 204, 409], [409, 409, 409, 204]],
});

check({
  name: 'an owner demotes a co-owner who is making another member owner',
  setup: () => team({ adam: 'owner', mia: 'member' }),
  requests: [setRole('olivia', 'adam', 'member'), setRole('adam', 'mia', 'owner')],
  serial: [[200, 403], [200, 200]],
});

check({
  name: 'an owner demotes an admin who is promoting a member to admin',
  setup: () => team({ adam: 'admin', mia: 'member' }),
  requests: [setRole('olivia', 'adam', 'member'), setRole('adam', 'mia', 'admin')],
  serial: [[200, 403], [200, 200]],
});

check({
  name: 'an owner demotes an admin who sets their own role back to admin',
  setup: () => team({ adam: 'admin' }),
  requests: [setRole('olivia', 'adam', 'member'), setRole('adam', 'adam', 'admin')],
  serial: [[200, 403], [200, 200]],
});

check({
  name: 'an owner removes an admin who is inviting',
  setup: () => team({ adam: 'admin' }),
  requests: [remove('olivia', 'adam'), invite('adam', 'ivan')],
  serial: [[204, 404], [204, 201]],
});

check({
  name: 'an owner removes an admin who is removing a member',
  setup: () => team({ adam: 'admin', mia: 'member' }),
  requests: [remove('olivia', 'adam'), remove('adam', 'mia')],
  serial: [[204, 404], [204, 204]],
});

check({
  name: 'an admin promotes a member whom an owner removes',
  setup: () => team({ adam: 'admin', mia: 'member' }),
  requests: [remove('olivia', 'mia'), setRole('adam', 'mia', 'admin')],
  serial: [[204, 404], [204, 200]],
});

check({
  name: 'two owners leave at once: exactly one can',
  setup: () => team({ adam: 'owner', mia: 'member' }),
  requests: [remove('olivia', 'olivia'), remove('adam', 'adam')],
  serial: [[204, 409], [409, 204]],
});

check({
  name: 'three owners leave at once: two can',
  setup: () => team({ adam: 'owner', mia: 'owner' }),
  requests: [remove('olivia', 'olivia'), remove('adam', 'adam'), remove('mia', 'mia')],
  serial: [[204, 204, 409], [204, 409, 204], [409, 204, 204]],
});

check({
  name: 'an owner removes a co-owner who is making another member owner',
  setup: () => team({ adam: 'owner', mia: 'member' }),
  requests: [remove('olivia', 'adam'), setRole('adam', 'mia', 'owner')],
  serial: [[204, 404], [204, 200]],
});

check({
  name: 'two owners demote each other at once: exactly one can',
  setup: () => team({ adam: 'owner' }),
  requests: [setRole('olivia', 'adam', 'member'), setRole('adam', 'olivia', 'member')],
  serial: [[200, 403], [403, 200]],
});

check({
  name: 'two owners remove each other at once: exactly one can',
  setup: () => team({ adam: 'owner' }),
  requests: [remove('olivia', 'adam'), remove('adam', 'olivia')],
  serial: [[204, 404], [404, 204]],
});

check({
  name: 'an owner steps down to member while the other owner leaves: one of them stays owner',
  setup: () => team({ adam: 'owner' }),
  requests: [setRole('olivia', 'olivia', 'member'), remove('adam', 'adam')],
  serial: [[200, 409], [409, 204]],
});

check({
  name: 'an owner removes the invitee while the invitee accepts',
  setup: () => team({ adam: 'admin' }, { user: 'ivan', by: 'olivia' }),
  requests: [remove('olivia', 'ivan'), accept('ivan')],
  serial: [[404, 200], [204, 200]],
});

check({
  name: 'an owner demotes an admin whose invitee accepts while the admin revokes',
  setup: () => team({ adam: 'admin' }, { user: 'ivan', by: 'adam' }),
  requests: [setRole('olivia', 'adam', 'member'), revoke('adam'), accept('ivan')],
  serial: [[200, 403, 200], [200, 204, 409], [200, 409, 200]],
});

check({
  name: 'two admins invite the same user at once',
  setup: () => team({ adam: 'admin', mia: 'admin' }),
  requests: [invite('adam', 'ivan'), invite('mia', 'ivan')],
  serial: [[201, 409], [409, 201]],
});

// Deleting and renaming update the team's row; see `queued` for why these come in pairs.
check({
  name: 'an owner deletes the team while an admin renames it',
  setup: () => team({ adam: 'admin' }),
  requests: [deleteTeam('olivia'), rename('adam', 'Renamed')],
  serial: [[204, 404], [204, 200]],
});

check({
  name: 'an owner deletes the team while the invitee accepts',
  setup: () => team({ adam: 'admin' }, { user: 'ivan', by: 'olivia' }),
  requests: [deleteTeam('olivia'), accept('ivan')],
  serial: [[204, 404], [204, 200]],
});

check({
  name: 'an owner deletes the team while an admin invites',
  setup: () => team({ adam: 'admin' }),
  requests: [deleteTeam('olivia'), invite('adam', 'ivan')],
  serial: [[204, 404], [204, 201]],
});

check({
  name: 'an owner deletes the team while an admin revokes',
  setup: () => team({ adam: 'admin' }, { user: 'ivan', by: 'olivia' }),
  requests: [deleteTeam('olivia'), revoke('adam')],
  serial: [[204, 404], [204, 204]],
});

check({
  name: 'an owner renames the team while an admin renames it',
  setup: () => team({ adam: 'admin' }),
  requests: [rename('olivia', 'By olivia'), rename('adam', 'By adam')],
  serial: [[200, 200]],
});
