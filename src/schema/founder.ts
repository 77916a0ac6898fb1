import { builder } from './builder.ts';
import { column, follow, followColumn } from './follow.ts';
import { listArgs, listType } from './list.ts';
import { resolveList, type ListDefinition, type RecordDefinition } from './list-query.ts';
import { declareResource } from './resource.ts';
import { Tag } from './tag.ts';

export const FOUNDER_LIST: ListDefinition<'founders'> = {
  resource: 'founders',
  typeName: 'Founder',
  maxLimit: 500,
  defaultSort: 'id',
};

export const FOUNDER_RECORD: RecordDefinition = { where: (id) => ({ id }) };

export const FOUNDERS = declareResource({
  name: 'founders',
  replicaReads: true,
  description: 'Founders with their companies, education and backgrounds.',
  read: 'read:founders',
  filter: 'founders',
  lists: [FOUNDER_LIST],
  rest: [
    { method: 'GET', path: '/api/founders', operation: 'ListFounders', kind: 'list' },
    { method: 'GET', path: '/api/founders/{id}', operation: 'GetFounder', kind: 'record', noun: 'Founder' },
  ],
});

/** A founder's role at an entity (spec: Founder.companies). */
const FounderCompany = builder.prismaObject('FounderCompany', {
  select: { id: true },
  fields: (t) => ({
    entity_id: t.int(column('entity_id')),
    entity_name: t.string(followColumn(['entity'], 'name')),
    is_founder: t.boolean(column('is_founder')),
    is_past: t.boolean(column('is_past')),
    raw_title: t.string(column('raw_title')),
    year_start: t.int({ nullable: true, ...column('year_start') }),
    year_end: t.int({ nullable: true, ...column('year_end') }),
  }),
});

const FounderEducation = builder.prismaObject('FounderEducation', {
  select: { id: true },
  fields: (t) => ({
    university_id: t.int(column('university_id')),
    university_name: t.string(followColumn(['university'], 'name')),
    degree: t.string(column('degree')),
    year_start: t.int({ nullable: true, ...column('year_start') }),
    year_end: t.int({ nullable: true, ...column('year_end') }),
    majors: t.stringList(column('majors')),
  }),
});

const Background = builder.prismaObject('Background', {
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id')),
    name: t.string(column('name')),
  }),
});

export const Founder = builder.prismaObject('Founder', {
  extensions: FOUNDERS.owns(['id', 'name', 'image', 'platform_url']),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id')),
    uuid: t.string(column('uuid')),
    name: t.string(column('name')),
    tagline: t.string(column('tagline')),
    image: t.string(column('image')),
    platform_url: t.string(column('platform_url')),
    gender: t.string(column('gender')),
    is_serial_founder: t.boolean(column('is_serial_founder')),
    is_super_founder: t.boolean(column('is_super_founder')),
    is_promising_founder: t.boolean(column('is_promising_founder')),
    is_strong_founder: t.boolean(column('is_strong_founder')),
    launch_year: t.int({ nullable: true, ...column('launch_year') }),
    hq_country: t.string(column('hq_country')),
    hq_city: t.string(column('hq_city')),
    tags: t.field({ type: [Tag], ...follow([['tags', { orderBy: { tag_id: 'asc' } }], 'tag']) }),
    education: t.field({ type: [FounderEducation], ...follow([['education', { orderBy: { id: 'asc' } }]]) }),
    companies: t.field({ type: [FounderCompany], ...follow([['companies', { orderBy: { id: 'asc' } }]]) }),
    backgrounds: t.field({
      type: [Background],
      ...follow([['backgrounds', { orderBy: { background_id: 'asc' } }], 'background']),
    }),
  }),
});

const FounderList = listType('Founder', Founder);

builder.queryFields((t) => ({
  founders: t.field({
    extensions: { ...FOUNDERS.reads, list: FOUNDER_LIST },
    type: FounderList,
    args: listArgs,
    resolve: (_root, args, context, info) =>
      resolveList(FOUNDER_LIST, args, context, info, {
        findMany: (query) => context.prisma.founder.findMany(query),
        count: (query) => context.prisma.founder.count(query),
      }),
  }),
  founder: t.prismaField({
    extensions: { ...FOUNDERS.reads, record: FOUNDER_RECORD },
    type: Founder,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) => context.prisma.founder.findFirst({ ...query, where: FOUNDER_RECORD.where(args.id) }),
  }),
}));
