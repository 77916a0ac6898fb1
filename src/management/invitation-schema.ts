/**
 * Team invitations over GraphQL: create (the token is in that response only), list, revoke, and
 * accept or decline by token. The rules live in src/management/invitations.ts.
 */
import { requirePrincipal } from '../auth/principal.ts';
import { definedOnly } from './records.ts';
import {
  answerInvitation,
  createInvitation,
  INVITATION_LIST_MAX_LIMIT,
  invitationStatus,
  parseInvitationInput,
  parseInvitationToken,
  revokeInvitation,
  INVITATION_CREATE,
  INVITATION_TOKEN,
} from './invitations.ts';
import { requireMembership } from './teams.ts';
import { builder } from '../schema/builder.ts';
import { example } from '../schema/field-facts.ts';
import { listType } from '../schema/list.ts';
import { resolvePagedList } from '../schema/list-query.ts';
import { declareResource } from '../schema/resource.ts';

export const INVITATIONS = declareResource({
  name: 'invitations',
  description: 'Team invitations: create, list, revoke, and accept or decline by token (valid 7 days).',
  read: 'read:teams',
  write: 'write:teams',
  tenant: { TeamInvitation: { through: 'team' } },
  lists: [{ typeName: 'TeamInvitation', maxLimit: INVITATION_LIST_MAX_LIMIT }],
  rest: [
    { method: 'GET', path: '/api/teams/{team}/invitations', operation: 'ListTeamInvitations', kind: 'page' },
    {
      method: 'POST',
      path: '/api/teams/{team}/invitations',
      operation: 'CreateInvitation',
      kind: 'created',
      noun: 'Invitation',
      body: (body) => parseInvitationInput(body, 'body'),
      bodySchema: INVITATION_CREATE,
    },
    { method: 'DELETE', path: '/api/teams/{team}/invitations/{id}', operation: 'RevokeInvitation', kind: 'deleted' },
    {
      method: 'POST',
      path: '/api/invitations/accept',
      operation: 'AcceptInvitation',
      kind: 'record',
      noun: 'Invitation',
      body: (body) => ({ token: parseInvitationToken(body, 'body') }),
      bodySchema: INVITATION_TOKEN,
    },
    {
      method: 'POST',
      path: '/api/invitations/decline',
      operation: 'DeclineInvitation',
      kind: 'record',
      noun: 'Invitation',
      body: (body) => ({ token: parseInvitationToken(body, 'body') }),
      bodySchema: INVITATION_TOKEN,
    },
  ],
});

const STATUS_DESCRIPTION = 'pending, accepted, declined, revoked, or expired (pending past expires_at)';

export const TeamInvitation = builder.prismaObject('TeamInvitation', {
  extensions: INVITATIONS.owns(),
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(11)),
    team_id: t.exposeInt('team_id', example(7)),
    invited_email: t.exposeString('invited_email', example('grace@example.org')),
    invited_user_id: t.exposeString('invited_user_id', example('user-44')),
    invited_by: t.exposeString('invited_by', example('user-42')),
    role: t.exposeString('role', { description: 'admin or member, given on acceptance', ...example('member') }),
    status: t.string({
      ...example('pending'),
      description: STATUS_DESCRIPTION,
      select: { status: true, expires_at: true },
      resolve: (invitation, _args, context) => invitationStatus(invitation, context.clock()),
    }),
    created_at: t.expose('created_at', { type: 'DateTime', ...example('2026-03-01T09:00:00.000Z') }),
    expires_at: t.expose('expires_at', { type: 'DateTime', ...example('2026-03-08T09:00:00.000Z') }),
  }),
});

interface CreatedInvitationRecord {
  id: number;
  team_id: number;
  invited_email: string;
  invited_user_id: string;
  invited_by: string;
  role: string;
  status: string;
  created_at: Date;
  expires_at: Date;
  token: string;
}

const CreatedTeamInvitation = builder.objectRef<CreatedInvitationRecord>('CreatedTeamInvitation').implement({
  extensions: INVITATIONS.owns(),
  description: 'A new invitation with its token: pass the token to the invited user now, it cannot be read again',
  fields: (t) => ({
    id: t.exposeInt('id'),
    team_id: t.exposeInt('team_id'),
    invited_email: t.exposeString('invited_email'),
    invited_user_id: t.exposeString('invited_user_id'),
    invited_by: t.exposeString('invited_by'),
    role: t.exposeString('role'),
    status: t.exposeString('status', { description: STATUS_DESCRIPTION }),
    token: t.exposeString('token', { description: 'For accept and decline; shown once' }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    expires_at: t.expose('expires_at', { type: 'DateTime' }),
  }),
});

const TeamInvitationList = listType('TeamInvitation', TeamInvitation);

const TEAM_ARG = { required: true, description: 'The team id' } as const;

builder.queryFields((t) => ({
  teamInvitations: t.field({
    type: TeamInvitationList,
    extensions: INVITATIONS.reads,
    description: "A team's invitations, newest first; tokens are never shown",
    args: { team: t.arg.int(TEAM_ARG), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context, info) =>
      resolvePagedList(
        {
          typeName: 'TeamInvitation',
          maxLimit: INVITATION_LIST_MAX_LIMIT,
          where: async () => {
            await requireMembership(context.prisma, requirePrincipal(context.principal), args.team);
            return { team_id: args.team };
          },
          findMany: (query) => context.prisma.teamInvitation.findMany({ ...query, orderBy: { id: 'desc' } }),
          count: (query) => context.prisma.teamInvitation.count(query),
        },
        args,
        context,
        info,
      ),
  }),
}));

const answer = (status: 'accepted' | 'declined') =>
  builder.mutationField(status === 'accepted' ? 'acceptInvitation' : 'declineInvitation', (t) =>
    t.prismaField({
      type: TeamInvitation,
      extensions: INVITATIONS.writes,
      description:
        status === 'accepted'
          ? 'Accepts an invitation addressed to the caller: it joins the team with the invitation’s role'
          : 'Declines an invitation addressed to the caller',
      args: { token: t.arg.string({ required: true }) },
      resolve: async (query, _root, args, context) => {
        const token = parseInvitationToken(definedOnly(args), '');
        const id = await answerInvitation(context.prisma, requirePrincipal(context.principal), token, status, context.clock());
        return context.prisma.teamInvitation.findUniqueOrThrow({ ...query, where: { id } });
      },
    }),
  );

builder.mutationFields((t) => ({
  createInvitation: t.field({
    type: CreatedTeamInvitation,
    extensions: INVITATIONS.writes,
    description: 'Invites a user to the team (owner or admin); valid for 7 days',
    args: {
      team: t.arg.int(TEAM_ARG),
      invited_email: t.arg.string({ required: true }),
      invited_user_id: t.arg.string({ required: true }),
      role: t.arg.string({ description: 'admin or member (default member)' }),
    },
    resolve: async (_root, { team, ...args }, context) => {
      const input = parseInvitationInput(definedOnly(args), '');
      const now = context.clock();
      const { id, token } = await createInvitation(context.prisma, requirePrincipal(context.principal), team, input, now);
      const record = await context.prisma.teamInvitation.findUniqueOrThrow({ where: { id } });
      return { ...record, status: invitationStatus(record, now), token };
    },
  }),
  revokeInvitation: t.boolean({
    extensions: INVITATIONS.writes,
    description: 'Revokes a pending invitation (owner or admin)',
    args: { team: t.arg.int(TEAM_ARG), id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      await revokeInvitation(context.prisma, requirePrincipal(context.principal), args.team, args.id, context.clock());
      return true;
    },
  }),
}));

answer('accepted');
answer('declined');
