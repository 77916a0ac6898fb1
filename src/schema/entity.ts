import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from './builder.ts';
import { Founder } from './founder.ts';
import { listType, parseWindow, type ListArgs } from './list.ts';
import { Tag } from './tag.ts';

export const ENTITY_MAX_LIMIT = 500;

export const Entity = builder.prismaObject('Entity', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    type: t.exposeString('type'),
    is_company: t.exposeBoolean('is_company'),
    is_investor: t.exposeBoolean('is_investor'),
    is_university: t.exposeBoolean('is_university'),
    is_crowdfunding: t.exposeBoolean('is_crowdfunding'),
    is_government: t.exposeBoolean('is_government'),
    is_non_profit: t.exposeBoolean('is_non_profit'),
    is_founder: t.exposeBoolean('is_founder'),
    name: t.exposeString('name'),
    tagline: t.exposeString('tagline'),
    image: t.exposeString('image'),
    platform_url: t.exposeString('platform_url'),
    launch_year: t.exposeInt('launch_year', { nullable: true }),
    hq_country: t.exposeString('hq_country'),
    hq_city: t.exposeString('hq_city'),
    lat: t.exposeFloat('lat', { nullable: true }),
    lon: t.exposeFloat('lon', { nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
    deleted_at: t.expose('deleted_at', { type: 'DateTime', nullable: true }),
    tags: t.field({
      type: [Tag],
      select: (_args, _context, nestedSelection) => ({
        tags: { select: { tag: nestedSelection(true) }, orderBy: { tag_id: 'asc' } },
      }),
      resolve: (entity) => entity.tags.map((link) => link.tag),
    }),
    founders: t.field({
      type: [Founder],
      select: (_args, _context, nestedSelection) => ({
        founder_roles: {
          where: { is_founder: true },
          select: { founder: nestedSelection(true) },
          orderBy: { founder_id: 'asc' },
        },
      }),
      resolve: (entity) => entity.founder_roles.map((role) => role.founder),
    }),
  }),
});

const EntityList = listType('Entity', Entity);

builder.queryFields((t) => ({
  entities: t.field({
    type: EntityList,
    args: {
      filter: t.arg.string(),
      sort: t.arg.string(),
      limit: t.arg.int(),
      offset: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args: ListArgs, context, info) => {
      const window = parseWindow(args, ENTITY_MAX_LIMIT);
      const where = { deleted_at: null };
      const query = queryFromInfo({ context, info, typeName: 'Entity', path: ['data'] });
      const rows = await context.prisma.entity.findMany({
        ...query,
        where,
        orderBy: [{ id: 'asc' }],
        take: window.limit,
        skip: window.offset,
      });
      return {
        data: rows,
        page: { ...window, next_cursor: null, count: () => context.prisma.entity.count({ where }) },
      };
    },
  }),
  entity: t.prismaField({
    type: Entity,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) =>
      context.prisma.entity.findFirst({ ...query, where: { id: args.id, deleted_at: null } }),
  }),
}));

