/**
 * Teams and their members (docs/management.md). A team belongs to an organisation and is visible only
 * to its members: to anyone else, even in the same organisation, it is 404. Roles:
 * - any member reads the team, its members and its invitations, and may leave;
 * - owners and admins rename it, invite, revoke invitations and manage members who are not owners;
 * - only owners make or unmake owners, remove owners, and delete the team;
 * - the last owner can neither leave nor be demoted (409): a team always has an owner.
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
const CREATE = z.strictObject(FIELDS);
const UPDATE = CREATE.partial();
const ROLE = z.strictObject({ role: z.enum(TEAM_ROLES, { error: `must be one of ${TEAM_ROLES.join(', ')}` }) });

export type TeamInput = z.output<typeof CREATE>;
export type TeamPatch = z.output<typeof UPDATE>;

export const parseTeamInput = (value: unknown, prefix: string): TeamInput => parseInput(CREATE, value, prefix);
export const parseTeamPatch = (value: unknown, prefix: string): TeamPatch => parseInput(UPDATE, value, prefix);
export const parseRole = (value: unknown, prefix: string): TeamRole => parseInput(ROLE, value, prefix).role;

const SLUG_TAKEN = 'An active team of your organisation already has this slug';

/** Active teams of the caller's organisation that the caller is a member of. */
export const visibleTeams = (principal: Principal) => ({
  org_id: principal.orgId,
  is_active: true,
  members: { some: { user_id: principal.subject } },
});

/** The caller's role in a team it can see; 404 when it cannot. */
export async function requireMembership(prisma: PrismaClient, principal: Principal, teamId: number): Promise<TeamRole> {
  const membership = await prisma.teamMember.findFirst({
    where: { team_id: teamId, user_id: principal.subject, team: { org_id: principal.orgId, is_active: true } },
    select: { role: true },
  });
  if (!membership) throw notFound('Team');
  return membership.role as TeamRole;
}

/** 403 unless the caller's role in the team is one of `roles`. */
export async function requireRole(
  prisma: PrismaClient,
  principal: Principal,
  teamId: number,
  roles: readonly TeamRole[],
  action: string,
): Promise<TeamRole> {
  const role = await requireMembership(prisma, principal, teamId);
  if (!roles.includes(role)) throw new AppError('FORBIDDEN', `Only a team ${roles.join(' or ')} can ${action}`);
  return role;
}

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
  await requireRole(prisma, principal, teamId, ['owner', 'admin'], 'change the team');
  await uniquely(() => prisma.team.update({ where: { id: teamId }, data: definedOnly(patch) }), SLUG_TAKEN);
}

export async function deleteTeam(prisma: PrismaClient, principal: Principal, teamId: number): Promise<void> {
  await requireRole(prisma, principal, teamId, ['owner'], 'delete the team');
  await prisma.team.update({ where: { id: teamId }, data: { is_active: false } });
}

/**
 * Changes a member's role. Owners may set any role; admins may only move members between admin and
 * member. Demoting the last owner is 409.
 */
export async function changeMemberRole(
  prisma: PrismaClient,
  principal: Principal,
  teamId: number,
  userId: string,
  role: TeamRole,
): Promise<number> {
  const callerRole = await requireRole(prisma, principal, teamId, ['owner', 'admin'], 'change roles');
  return prisma.$transaction(async (tx) => {
    const member = await lockedMember(tx as PrismaClient, teamId, userId);
    if (callerRole !== 'owner' && (member.role === 'owner' || role === 'owner')) {
      throw new AppError('FORBIDDEN', 'Only a team owner can make or unmake owners');
    }
    if (member.role === 'owner' && role !== 'owner') await assertNotLastOwner(tx as PrismaClient, teamId, 'demoted');
    await tx.teamMember.update({ where: { id: member.id }, data: { role } });
    return member.id;
  });
}

/** Removes a member: the member itself (leaving), or an owner/admin within the rules above. */
export async function removeMember(prisma: PrismaClient, principal: Principal, teamId: number, userId: string): Promise<void> {
  const callerRole = await requireMembership(prisma, principal, teamId);
  const leaving = userId === principal.subject;
  if (!leaving && callerRole === 'member') throw new AppError('FORBIDDEN', 'Only a team owner or admin can remove members');
  await prisma.$transaction(async (tx) => {
    const member = await lockedMember(tx as PrismaClient, teamId, userId);
    if (member.role === 'owner') {
      if (!leaving && callerRole !== 'owner') throw new AppError('FORBIDDEN', 'Only a team owner can remove an owner');
      await assertNotLastOwner(tx as PrismaClient, teamId, 'removed');
    }
    await tx.teamMember.delete({ where: { id: member.id } });
  });
}

/**
 * The member row, after locking the team's owner rows: two owners leaving at once must not both see
 * "another owner is left".
 */
async function lockedMember(tx: PrismaClient, teamId: number, userId: string): Promise<{ id: number; role: string }> {
  await tx.$queryRaw`SELECT id FROM team_members WHERE team_id = ${teamId} AND role = 'owner' FOR UPDATE`;
  const member = await tx.teamMember.findFirst({ where: { team_id: teamId, user_id: userId }, select: { id: true, role: true } });
  if (!member) throw notFound('Team member');
  return member;
}

async function assertNotLastOwner(tx: PrismaClient, teamId: number, what: string): Promise<void> {
  const owners = await tx.teamMember.count({ where: { team_id: teamId, role: 'owner' } });
  if (owners <= 1) throw new AppError('CONFLICT', `The last owner of a team cannot be ${what}; make another member owner first`);
}
