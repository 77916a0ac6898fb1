/**
 * Team invitations (docs/management.md). An owner or admin invites a user by id (and e-mail, for the
 * record); the response carries the token once. Only its SHA-256 is stored: the token holds 256 random
 * bits, so a fast hash is safe, and it lets accept and decline find the invitation by token. The
 * invited user (the token's subject equals `invited_user_id`) accepts or declines; an owner or admin
 * revokes. Past `expires_at` a pending invitation reads `expired` and can no longer be accepted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { PrismaClient } from '../db/client.ts';
import { AppError, notFound } from '../errors.ts';
import type { Principal } from '../auth/principal.ts';
import { parseInput, text } from './input.ts';
import { requireRole } from './teams.ts';

export const INVITATION_LIST_MAX_LIMIT = 2000;
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** The prefix lets secret scanners recognise a leaked invitation token. */
export const INVITATION_TOKEN_PREFIX = 'vdi_';

const CREATE = z.strictObject({
  invited_email: z.email({ error: 'must be an e-mail address' }).max(320, 'must be an e-mail address'),
  invited_user_id: text(1, 200),
  role: z.enum(['admin', 'member'], { error: 'must be admin or member' }).default('member'),
});
const TOKEN = z.strictObject({ token: text(1, 200) });

export type InvitationInput = z.output<typeof CREATE>;

export const parseInvitationInput = (value: unknown, prefix: string): InvitationInput => parseInput(CREATE, value, prefix);
export const parseInvitationToken = (value: unknown, prefix: string): string => parseInput(TOKEN, value, prefix).token;

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked' | 'expired';

/** The status a reader sees: a pending invitation past its expiry is `expired`. */
export function invitationStatus(invitation: { status: string; expires_at: Date }, now: Date): InvitationStatus {
  return invitation.status === 'pending' && invitation.expires_at.getTime() <= now.getTime()
    ? 'expired'
    : (invitation.status as InvitationStatus);
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface CreatedInvitation {
  id: number;
  token: string;
}

export async function createInvitation(
  prisma: PrismaClient,
  principal: Principal,
  teamId: number,
  input: InvitationInput,
  now: Date,
): Promise<CreatedInvitation> {
  await requireRole(prisma, principal, teamId, ['owner', 'admin'], 'invite');
  const token = `${INVITATION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = await prisma.$transaction(async (tx) => {
    // Serialises invitations to one team, so two at once cannot both pass the duplicate check.
    await tx.$queryRaw`SELECT id FROM teams WHERE id = ${teamId} FOR UPDATE`;
    const member = await tx.teamMember.findFirst({ where: { team_id: teamId, user_id: input.invited_user_id }, select: { id: true } });
    if (member) throw new AppError('CONFLICT', 'This user is already a member of the team');
    const pending = await tx.teamInvitation.findFirst({
      where: { team_id: teamId, invited_user_id: input.invited_user_id, status: 'pending', expires_at: { gt: now } },
      select: { id: true },
    });
    if (pending) throw new AppError('CONFLICT', 'An invitation for this user is already pending');
    const created = await tx.teamInvitation.create({
      data: {
        ...input,
        team_id: teamId,
        invited_by: principal.subject,
        token_hash: hashToken(token),
        created_at: now,
        expires_at: new Date(now.getTime() + INVITATION_LIFETIME_MS),
      },
      select: { id: true },
    });
    return created.id;
  });
  return { id, token };
}

export async function revokeInvitation(prisma: PrismaClient, principal: Principal, teamId: number, id: number, now: Date): Promise<void> {
  await requireRole(prisma, principal, teamId, ['owner', 'admin'], 'revoke invitations');
  const invitation = await prisma.teamInvitation.findFirst({ where: { id, team_id: teamId }, select: { status: true, expires_at: true } });
  if (!invitation) throw notFound('Invitation');
  const status = invitationStatus(invitation, now);
  if (status !== 'pending') throw new AppError('CONFLICT', `The invitation is ${status}, not pending`);
  await respond(prisma, id, 'revoked', now);
}

/**
 * Accepts or declines by token, for the invited user only. Accepting adds the membership with the
 * invitation's role in the same transaction that marks it accepted.
 */
export async function answerInvitation(
  prisma: PrismaClient,
  principal: Principal,
  token: string,
  answer: 'accepted' | 'declined',
  now: Date,
): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const [invitation] = await tx.$queryRaw<{ id: number; team_id: number; invited_user_id: string; role: string; status: string; expires_at: Date }[]>`
      SELECT i.id, i.team_id, i.invited_user_id, i.role, i.status, i.expires_at
      FROM team_invitations i JOIN teams t ON t.id = i.team_id
      WHERE i.token_hash = ${hashToken(token)} AND t.org_id = ${principal.orgId} AND t.is_active
      FOR UPDATE OF i`;
    if (!invitation) throw notFound('Invitation');
    if (invitation.invited_user_id !== principal.subject) {
      throw new AppError('FORBIDDEN', 'Only the invited user can answer this invitation');
    }
    const status = invitationStatus(invitation, now);
    if (status !== 'pending') throw new AppError('CONFLICT', `The invitation is ${status}, not pending`);
    if (answer === 'accepted') {
      const member = await tx.teamMember.findFirst({ where: { team_id: invitation.team_id, user_id: principal.subject }, select: { id: true } });
      if (member) throw new AppError('CONFLICT', 'You are already a member of this team');
      await tx.teamMember.create({ data: { team_id: invitation.team_id, user_id: principal.subject, role: invitation.role, joined_at: now } });
    }
    await respond(tx as PrismaClient, invitation.id, answer, now);
    return invitation.id;
  });
}

async function respond(prisma: PrismaClient, id: number, status: 'accepted' | 'declined' | 'revoked', now: Date): Promise<void> {
  await prisma.teamInvitation.update({ where: { id }, data: { status, responded_at: now } });
}
