import { builder } from './builder.ts';
import { follow } from './follow.ts';
import { Founder } from './founder.ts';
import { listArgs, listType } from './list.ts';
import { resolveList, type ListDefinition, type RecordDefinition } from './list-query.ts';
import { declareResource } from './resource.ts';
import { Tag } from './tag.ts';

export const ENTITY_LIST: ListDefinition<'entities'> = {
  resource: 'entities',
  typeName: 'Entity',
  maxLimit: 500,
  defaultSort: 'id',
  // Soft-deleted entities stay hidden unless the filter asks about deletion (sync clients do).
  scope: (filter) => (filter.namesField('deleted_at') ? undefined : { deleted_at: null }),
};

export const ENTITY_RECORD: RecordDefinition = {
  where: (id) => ({ id, deleted_at: null }),
};

export const ENTITIES = declareResource({
  name: 'entities',
  read: 'read:entities',
  filter: 'entities',
  lists: [ENTITY_LIST],
  rest: [
    { method: 'GET', path: '/api/entities', operation: 'ListEntities', kind: 'list' },
    { method: 'GET', path: '/api/entities/{id}', operation: 'GetEntity', kind: 'record', noun: 'Entity' },
  ],
});

export const Entity = builder.prismaObject('Entity', {
  extensions: ENTITIES.owns(['id', 'name']),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
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
    tags: t.field({ type: [Tag], ...follow([['tags', { orderBy: { tag_id: 'asc' } }], 'tag']) }),
    founders: t.field({
      type: [Founder],
      ...follow([['founder_roles', { where: { is_founder: true }, orderBy: { founder_id: 'asc' } }], 'founder']),
    }),
    // GraphQL-only: the derived figures filters use. Relations to rounds, valuations, news and
    // investors are added by those resources' files (prismaObjectField), next to their types.
    total_funding_usd: t.expose('total_funding_usd', { type: 'Money' }),
    is_unicorn: t.exposeBoolean('is_unicorn'),
  }),
});

export const EntityList = listType('Entity', Entity);

builder.queryFields((t) => ({
  entities: t.field({
    extensions: { ...ENTITIES.reads, list: ENTITY_LIST },
    type: EntityList,
    args: listArgs,
    resolve: (_root, args, context, info) =>
      resolveList(ENTITY_LIST, args, context, info, {
        findMany: (query) => context.prisma.entity.findMany(query),
        count: (query) => context.prisma.entity.count(query),
      }),
  }),
  entity: t.prismaField({
    extensions: { ...ENTITIES.reads, record: ENTITY_RECORD },
    type: Entity,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) =>
      context.prisma.entity.findFirst({ ...query, where: ENTITY_RECORD.where(args.id) }),
  }),
}));
