/**
 * Teams and their members over GraphQL. A team is visible only to its members; roles decide who
 * changes what. The rules live in src/management/teams.ts.
 */
import { requirePrincipal } from '../auth/principal.ts';
import { definedOnly } from './records.ts';
import {
  changeMemberRole,
  createTeam,
  deleteTeam,
  parseRole,
  parseTeamInput,
  parseTeamPatch,
  removeMember,
  requireMembership,
  TEAM_LIST_MAX_LIMIT,
  updateTeam,
  USER_ID,
  visibleTeams,
  TEAM_CREATE,
  TEAM_ROLE,
  TEAM_UPDATE,
} from './teams.ts';
import { builder } from '../schema/builder.ts';
import { example } from '../schema/field-facts.ts';
import { listType } from '../schema/list.ts';
import { resolvePagedList } from '../schema/list-query.ts';
import { declareResource } from '../schema/resource.ts';

export const TEAMS = declareResource({
  name: 'teams',
  description: 'Teams of an organisation, visible to their members, with owner, admin and member roles.',
  read: 'read:teams',
  write: 'write:teams',
  tenant: { Team: { column: 'org_id' }, TeamMember: { through: 'team' } },
  lists: [
    { typeName: 'Team', maxLimit: TEAM_LIST_MAX_LIMIT },
    { typeName: 'TeamMember', maxLimit: TEAM_LIST_MAX_LIMIT },
  ],
  rest: [
    { method: 'GET', path: '/api/teams', operation: 'ListTeams', kind: 'page' },
    { method: 'POST', path: '/api/teams', operation: 'CreateTeam', kind: 'created', noun: 'Team', body: (body) => parseTeamInput(body, 'body'), bodySchema: TEAM_CREATE },
    { method: 'GET', path: '/api/teams/{id}', operation: 'GetTeam', kind: 'record', noun: 'Team' },
    {
      method: 'PATCH',
      path: '/api/teams/{id}',
      operation: 'UpdateTeam',
      kind: 'record',
      noun: 'Team',
      body: (body) => parseTeamPatch(body, 'body'),
      bodySchema: TEAM_UPDATE,
    },
    { method: 'DELETE', path: '/api/teams/{id}', operation: 'DeleteTeam', kind: 'deleted' },
    { method: 'GET', path: '/api/teams/{team}/members', operation: 'ListTeamMembers', kind: 'page' },
    {
      method: 'PATCH',
      path: '/api/teams/{team}/members/{user_id}',
      operation: 'UpdateTeamMember',
      kind: 'record',
      noun: 'Team member',
      textParams: { user_id: USER_ID },
      body: (body) => ({ role: parseRole(body, 'body') }),
      bodySchema: TEAM_ROLE,
    },
    {
      method: 'DELETE',
      path: '/api/teams/{team}/members/{user_id}',
      operation: 'RemoveTeamMember',
      kind: 'deleted',
      textParams: { user_id: USER_ID },
    },
  ],
});

export const Team = builder.prismaObject('Team', {
  extensions: TEAMS.owns(),
  description: 'A group of users of one organisation; visible to its members only',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(7)),
    name: t.exposeString('name', example('Research')),
    slug: t.exposeString('slug', example('research')),
    created_by: t.exposeString('created_by', { description: 'The user (or API key client) that created it', ...example('user-42') }),
    is_active: t.exposeBoolean('is_active', example(true)),
    created_at: t.expose('created_at', { type: 'DateTime', ...example('2026-02-01T10:00:00.000Z') }),
    updated_at: t.expose('updated_at', { type: 'DateTime', ...example('2026-02-01T10:00:00.000Z') }),
    member_count: t.relationCount('members', example(3)),
  }),
});

export const TeamMember = builder.prismaObject('TeamMember', {
  extensions: TEAMS.owns(),
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(19)),
    team_id: t.exposeInt('team_id', example(7)),
    user_id: t.exposeString('user_id', example('user-43')),
    role: t.exposeString('role', { description: 'owner, admin or member', ...example('member') }),
    joined_at: t.expose('joined_at', { type: 'DateTime', ...example('2026-02-03T14:20:00.000Z') }),
  }),
});

const TeamList = listType('Team', Team);
const TeamMemberList = listType('TeamMember', TeamMember);

const TEAM_ARG = { required: true, description: 'The team id' } as const;

builder.queryFields((t) => ({
  teams: t.field({
    type: TeamList,
    extensions: TEAMS.reads,
    description: "The caller's active teams, by id",
    args: { limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context, info) =>
      resolvePagedList(
        {
          typeName: 'Team',
          maxLimit: TEAM_LIST_MAX_LIMIT,
          where: () => visibleTeams(requirePrincipal(context.principal)),
          findMany: (query) => context.prisma.team.findMany({ ...query, orderBy: { id: 'asc' } }),
          count: (query) => context.prisma.team.count(query),
        },
        args,
        context,
        info,
      ),
  }),
  team: t.prismaField({
    type: Team,
    nullable: true,
    extensions: TEAMS.reads,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) =>
      context.prisma.team.findFirst({ ...query, where: { id: args.id, ...visibleTeams(requirePrincipal(context.principal)) } }),
  }),
  teamMembers: t.field({
    type: TeamMemberList,
    extensions: TEAMS.reads,
    description: "A team's members, by join order",
    args: { team: t.arg.int(TEAM_ARG), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context, info) =>
      resolvePagedList(
        {
          typeName: 'TeamMember',
          maxLimit: TEAM_LIST_MAX_LIMIT,
          where: async () => {
            await requireMembership(context.prisma, requirePrincipal(context.principal), args.team);
            return { team_id: args.team };
          },
          findMany: (query) => context.prisma.teamMember.findMany({ ...query, orderBy: { id: 'asc' } }),
          count: (query) => context.prisma.teamMember.count(query),
        },
        args,
        context,
        info,
      ),
  }),
}));

builder.mutationFields((t) => ({
  createTeam: t.prismaField({
    type: Team,
    extensions: TEAMS.writes,
    description: 'Creates a team; the caller becomes its first owner',
    args: { name: t.arg.string({ required: true }), slug: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const id = await createTeam(context.prisma, requirePrincipal(context.principal), parseTeamInput(definedOnly(args), ''));
      return context.prisma.team.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateTeam: t.prismaField({
    type: Team,
    extensions: TEAMS.writes,
    description: 'Renames the team (owner or admin)',
    args: { id: t.arg.int({ required: true }), name: t.arg.string(), slug: t.arg.string() },
    resolve: async (query, _root, { id, ...args }, context) => {
      await updateTeam(context.prisma, requirePrincipal(context.principal), id, parseTeamPatch(definedOnly(args), ''));
      return context.prisma.team.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteTeam: t.boolean({
    extensions: TEAMS.writes,
    description: 'Deactivates the team (owner only)',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      await deleteTeam(context.prisma, requirePrincipal(context.principal), args.id);
      return true;
    },
  }),
  updateTeamMember: t.prismaField({
    type: TeamMember,
    extensions: TEAMS.writes,
    description: "Changes a member's role: owner, admin or member",
    args: { team: t.arg.int(TEAM_ARG), user_id: t.arg.string({ required: true }), role: t.arg.string({ required: true }) },
    // The member as written (every field of it, for any selection), not read again after the commit.
    resolve: (_query, _root, args, context) => {
      const role = parseRole({ role: args.role }, '');
      return changeMemberRole(context.prisma, requirePrincipal(context.principal), args.team, args.user_id, role);
    },
  }),
  removeTeamMember: t.boolean({
    extensions: TEAMS.writes,
    description: 'Removes a member, or lets the caller leave; the last owner cannot leave',
    args: { team: t.arg.int(TEAM_ARG), user_id: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => {
      await removeMember(context.prisma, requirePrincipal(context.principal), args.team, args.user_id);
      return true;
    },
  }),
}));
