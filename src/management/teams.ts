/**
 * Teams and their members (docs/management.md). A team belongs to an organisation and is visible only
 * to its members: to anyone else, even in the same organisation, it is 404. Roles:
 * - any member reads the team, its members and its invitations, and may leave;
 * - owners and admins rename it, invite, revoke invitations and manage members who are not owners;
 * - only owners make or unmake owners, remove owners, and delete the team;
 * - the last owner can neither leave nor be demoted (409): a team always has an owner.
 * Every write is decided in one transaction holding the team's row lock (`inTeam`, `lockTeam`).
 */
import { z } from 'zod';
import type { PrismaClient } from '../db/client.ts';
import { AppError, notFound } from '../errors.ts';
import type { Principal } from '../auth/principal.ts';
import { parseInput, text } from './input.ts';
import { definedOnly, uniquely } from './records.ts';

export const TEAM_LIST_MAX_LIMIT = 2000;
export const TEAM_ROLES = ['owner', 'admin', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

const FIELDS = {
  name: text(1, 200),
  slug: text(1, 100).regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'must be lowercase letters, digits and inner hyphens'),
};
export const TEAM_CREATE = z.strictObject(FIELDS).meta({ examples: [{ name: 'Research', slug: 'research' }] });
export const TEAM_UPDATE = TEAM_CREATE.partial().meta({ examples: [{ name: 'Market research' }] });
export const TEAM_ROLE = z
  .strictObject({ role: z.enum(TEAM_ROLES, { error: `must be one of ${TEAM_ROLES.join(', ')}` }) })
  .meta({ examples: [{ role: 'admin' }] });

export type TeamInput = z.output<typeof TEAM_CREATE>;
export type TeamPatch = z.output<typeof TEAM_UPDATE>;

export const parseTeamInput = (value: unknown, prefix: string): TeamInput => parseInput(TEAM_CREATE, value, prefix);
export const parseTeamPatch = (value: unknown, prefix: string): TeamPatch => parseInput(TEAM_UPDATE, value, prefix);
export const parseRole = (value: unknown, prefix: string): TeamRole => parseInput(TEAM_ROLE, value, prefix).role;

/**
 * A member's user id as the member routes take it in their path: one segment, so no `/`, and not `.`
 * or `..`, which URL clients resolve away before sending. Invitations refuse any other id, so that
 * every member stays addressable over REST as over GraphQL.
 */
export const USER_ID = /^(?!\.\.?$)[^/]{1,200}$/;
export const USER_ID_RULE = 'must fit one URL path segment: no "/", and not "." or ".."';

const SLUG_TAKEN = 'An active team of your organisation already has this slug';

/** Active teams the caller is a member of (its client keeps to its organisation: src/auth/tenancy.ts). */
export const visibleTeams = (principal: Principal) => ({
  is_active: true,
  members: { some: { user_id: principal.subject } },
});

/** The caller's role in a team it can see; 404 when it cannot. For reads: writes go through `inTeam`. */
export async function requireMembership(prisma: PrismaClient, principal: Principal, teamId: number): Promise<TeamRole> {
  const membership = await prisma.teamMember.findFirst({
    where: { team_id: teamId, user_id: principal.subject, team: { is_active: true } },
    select: { role: true },
  });
  if (!membership) throw notFound('Team');
  return membership.role as TeamRole;
}

/**
 * Locks the row of an active team of the caller's organisation until the transaction ends; false when
 * there is none. Every write to a team's record, members or invitations takes this lock first, so
 * they take turns, and what each reads after it (roles, members, invitations) stays true until it
 * commits: the outcome is always one a serial order gives. The caller's client finds the team (its
 * tenant rule decides the organisation, which a team never changes); the lock then names only its id.
 */
export async function lockTeam(tx: PrismaClient, teamId: number): Promise<boolean> {
  if (!(await tx.team.findFirst({ where: { id: teamId, is_active: true }, select: { id: true } }))) return false;
  const rows = await tx.$queryRaw<unknown[]>`SELECT id FROM teams WHERE id = ${teamId} AND is_active FOR UPDATE`;
  return rows.length > 0;
}

/**
 * Runs `work` in one transaction holding the team's lock, once the caller's role there, read under
 * that lock, is one of `roles`: 404 when the team is missing or the caller is not a member, 403 for
 * another role. A role read before the lock could be changed before the write commits.
 */
export function inTeam<T>(
  prisma: PrismaClient,
  principal: Principal,
  teamId: number,
  roles: readonly TeamRole[],
  action: string,
  work: (tx: PrismaClient, role: TeamRole) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(async (transaction) => {
    const tx = transaction as PrismaClient;
    if (!(await lockTeam(tx, teamId))) throw notFound('Team');
    const caller = await findMember(tx, teamId, principal.subject);
    if (!caller) throw notFound('Team');
    const role = caller.role as TeamRole;
    if (!roles.includes(role)) throw new AppError('FORBIDDEN', `Only a team ${roles.join(' or ')} can ${action}`);
    return work(tx, role);
  });
}

const findMember = (tx: PrismaClient, teamId: number, userId: string) =>
  tx.teamMember.findUnique({ where: { team_id_user_id: { team_id: teamId, user_id: userId } }, select: { id: true, role: true } });

export async function createTeam(prisma: PrismaClient, principal: Principal, input: TeamInput): Promise<number> {
  const team = await uniquely(
    () =>
      prisma.team.create({
        data: {
          ...input,
          org_id: principal.orgId,
          created_by: principal.subject,
          members: { create: { user_id: principal.subject, role: 'owner' } },
        },
        select: { id: true },
      }),
    SLUG_TAKEN,
  );
  return team.id;
}

export async function updateTeam(prisma: PrismaClient, principal: Principal, teamId: number, patch: TeamPatch): Promise<void> {
  await inTeam(prisma, principal, teamId, ['owner', 'admin'], 'change the team', (tx) =>
    uniquely(() => tx.team.update({ where: { id: teamId }, data: definedOnly(patch) }), SLUG_TAKEN),
  );
}

export async function deleteTeam(prisma: PrismaClient, principal: Principal, teamId: number): Promise<void> {
  await inTeam(prisma, principal, teamId, ['owner'], 'delete the team', (tx) =>
    tx.team.update({ where: { id: teamId }, data: { is_active: false } }),
  );
}

/**
 * Changes a member's role. Owners may set any role; admins may only move members between admin and
 * member. Demoting the last owner is 409. Answers the member as written: a read after the commit
 * could find it already removed by the next write.
 */
export function changeMemberRole(prisma: PrismaClient, principal: Principal, teamId: number, userId: string, role: TeamRole) {
  return inTeam(prisma, principal, teamId, ['owner', 'admin'], 'change roles', async (tx, callerRole) => {
    const member = await teamMember(tx, teamId, userId);
    if (callerRole !== 'owner' && (member.role === 'owner' || role === 'owner')) {
      throw new AppError('FORBIDDEN', 'Only a team owner can make or unmake owners');
    }
    if (member.role === 'owner' && role !== 'owner') await assertNotLastOwner(tx, teamId, 'demoted');
    return tx.teamMember.update({ where: { id: member.id }, data: { role } });
  });
}

/** Removes a member: the member itself (leaving), or an owner/admin within the rules above. */
export async function removeMember(prisma: PrismaClient, principal: Principal, teamId: number, userId: string): Promise<void> {
  const leaving = userId === principal.subject;
  const roles = leaving ? TEAM_ROLES : (['owner', 'admin'] as const);
  await inTeam(prisma, principal, teamId, roles, 'remove members', async (tx, callerRole) => {
    const member = await teamMember(tx, teamId, userId);
    if (member.role === 'owner') {
      if (!leaving && callerRole !== 'owner') throw new AppError('FORBIDDEN', 'Only a team owner can remove an owner');
      await assertNotLastOwner(tx, teamId, 'removed');
    }
    await tx.teamMember.delete({ where: { id: member.id } });
  });
}

async function teamMember(tx: PrismaClient, teamId: number, userId: string): Promise<{ id: number; role: string }> {
  const member = await findMember(tx, teamId, userId);
  if (!member) throw notFound('Team member');
  return member;
}

async function assertNotLastOwner(tx: PrismaClient, teamId: number, what: string): Promise<void> {
  const owners = await tx.teamMember.count({ where: { team_id: teamId, role: 'owner' } });
  if (owners <= 1) throw new AppError('CONFLICT', `The last owner of a team cannot be ${what}; make another member owner first`);
}
