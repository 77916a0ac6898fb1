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
import { inTeam, lockTeam, USER_ID, USER_ID_RULE } from './teams.ts';

export const INVITATION_LIST_MAX_LIMIT = 2000;
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** The prefix lets secret scanners recognise a leaked invitation token. */
export const INVITATION_TOKEN_PREFIX = 'vdi_';

export const INVITATION_CREATE = z.strictObject({
  invited_email: z.email({ error: 'must be an e-mail address' }).max(320, 'must be an e-mail address'),
  // It becomes a member's user_id, which the member routes take as a path segment. Checked only when
  // the text itself is fine, so that one problem gives one detail.
  invited_user_id: text(1, 200)
    .refine((id) => USER_ID.test(id), { error: USER_ID_RULE, when: ({ issues }) => issues.length === 0 })
    .meta({ pattern: USER_ID.source }),
  role: z.enum(['admin', 'member'], { error: 'must be admin or member' }).default('member'),
}).meta({ examples: [{ invited_email: 'grace@example.org', invited_user_id: 'user-44', role: 'member' }] });
export const INVITATION_TOKEN = z.strictObject({ token: text(1, 200) }).meta({ examples: [{ token: 'vdi_4fJk2mQ9xR7tV1bN8cL3pZ6wY0sH5gD2' }] });

export type InvitationInput = z.output<typeof INVITATION_CREATE>;

export const parseInvitationInput = (value: unknown, prefix: string): InvitationInput => parseInput(INVITATION_CREATE, value, prefix);
export const parseInvitationToken = (value: unknown, prefix: string): string => parseInput(INVITATION_TOKEN, value, prefix).token;

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
  const token = `${INVITATION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = await inTeam(prisma, principal, teamId, ['owner', 'admin'], 'invite', async (tx) => {
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
  await inTeam(prisma, principal, teamId, ['owner', 'admin'], 'revoke invitations', async (tx) => {
    const invitation = await tx.teamInvitation.findFirst({ where: { id, team_id: teamId }, select: { status: true, expires_at: true } });
    if (!invitation) throw notFound('Invitation');
    assertPending(invitation, now);
    await respond(tx, id, 'revoked', now);
  });
}

/**
 * Accepts or declines by token, for the invited user only. Accepting adds the membership with the
 * invitation's role in the same transaction that marks it accepted. The invited user is no member
 * yet, so this takes the team's lock itself (`lockTeam`) and reads the invitation again under it.
 */
export async function answerInvitation(
  prisma: PrismaClient,
  principal: Principal,
  token: string,
  answer: 'accepted' | 'declined',
  now: Date,
): Promise<number> {
  const found = await prisma.teamInvitation.findUnique({ where: { token_hash: hashToken(token) }, select: { id: true, team_id: true } });
  if (!found) throw notFound('Invitation');
  return prisma.$transaction(async (transaction) => {
    const tx = transaction as PrismaClient;
    if (!(await lockTeam(tx, found.team_id))) throw notFound('Invitation');
    const invitation = await tx.teamInvitation.findUniqueOrThrow({ where: { id: found.id } });
    if (invitation.invited_user_id !== principal.subject) {
      throw new AppError('FORBIDDEN', 'Only the invited user can answer this invitation');
    }
    assertPending(invitation, now);
    if (answer === 'accepted') {
      const member = await tx.teamMember.findFirst({ where: { team_id: invitation.team_id, user_id: principal.subject }, select: { id: true } });
      if (member) throw new AppError('CONFLICT', 'You are already a member of this team');
      await tx.teamMember.create({ data: { team_id: invitation.team_id, user_id: principal.subject, role: invitation.role, joined_at: now } });
    }
    await respond(tx, invitation.id, answer, now);
    return invitation.id;
  });
}

function assertPending(invitation: { status: string; expires_at: Date }, now: Date): void {
  const status = invitationStatus(invitation, now);
  if (status !== 'pending') throw new AppError('CONFLICT', `The invitation is ${status}, not pending`);
}

async function respond(tx: PrismaClient, id: number, status: 'accepted' | 'declined' | 'revoked', now: Date): Promise<void> {
  await tx.teamInvitation.update({ where: { id }, data: { status, responded_at: now } });
}
