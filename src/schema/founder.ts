import type { Prisma } from '../db/generated/prisma/client.ts';
import { idList, locationColumn, quantify } from '../filter/fields/build.ts';
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
  filters: {
    refs: ['entity'],
    fields: [
      locationColumn<Prisma.FounderWhereInput>('location_country', 'location_country_id'),
      idList('tags', (q, id): Prisma.FounderWhereInput => ({ tags: quantify(q, { tag_id: id }) })),
      // Every role the founder has held, as the record's `companies` lists them.
      idList('companies', (q, id): Prisma.FounderWhereInput => ({ companies: quantify(q, { entity_id: id }) })),
      idList('education', (q, id): Prisma.FounderWhereInput => ({ education: quantify(q, { university_id: id }) })),
      idList('backgrounds', (q, id): Prisma.FounderWhereInput => ({ backgrounds: quantify(q, { background_id: id }) })),
    ],
    groupings: [{ name: 'tags', path: ['tags', 'tag'], columns: ['name', 'type'] }],
  },
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
    entity_id: t.int(column('entity_id', { example: 1042 })),
    entity_name: t.string(followColumn(['entity'], 'name', { example: 'Solaris' })),
    is_founder: t.boolean(column('is_founder', { example: true })),
    is_past: t.boolean(column('is_past', { example: false })),
    raw_title: t.string(column('raw_title', { example: 'Co-founder & CTO' })),
    year_start: t.int({ nullable: true, ...column('year_start', { example: 2016 }) }),
    year_end: t.int({ nullable: true, ...column('year_end', { example: null }) }),
  }),
});

const FounderEducation = builder.prismaObject('FounderEducation', {
  select: { id: true },
  fields: (t) => ({
    university_id: t.int(column('university_id', { example: 501 })),
    university_name: t.string(followColumn(['university'], 'name', { example: 'TU Berlin' })),
    degree: t.string(column('degree', { example: 'MSc' })),
    year_start: t.int({ nullable: true, ...column('year_start', { example: 2008 }) }),
    year_end: t.int({ nullable: true, ...column('year_end', { example: 2010 }) }),
    majors: t.stringList(column('majors', { example: ['Computer Science'] })),
  }),
});

const Background = builder.prismaObject('Background', {
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id', { example: 3 })),
    name: t.string(column('name', { example: 'Engineering' })),
  }),
});

export const Founder = builder.prismaObject('Founder', {
  extensions: FOUNDERS.owns(['id', 'name', 'image', 'platform_url']),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id', { example: 88 })),
    uuid: t.string(column('uuid', { example: '0f9e8d7c-6b5a-4c3d-2e1f-0a9b8c7d6e5f' })),
    name: t.string(column('name', { example: 'Ada Example' })),
    tagline: t.string(column('tagline', { example: 'Founder, payments' })),
    image: t.string(column('image', { example: '' })),
    platform_url: t.string(column('platform_url', { example: 'https://platform.example.org/founders/88' })),
    gender: t.string(column('gender', { example: 'female' })),
    is_serial_founder: t.boolean(column('is_serial_founder', { example: true })),
    is_super_founder: t.boolean(column('is_super_founder', { example: false })),
    is_promising_founder: t.boolean(column('is_promising_founder', { example: true })),
    is_strong_founder: t.boolean(column('is_strong_founder', { example: true })),
    launch_year: t.int({ nullable: true, ...column('launch_year', { example: 2016 }) }),
    hq_country: t.string(column('hq_country', { example: 'Germany' })),
    hq_city: t.string(column('hq_city', { example: 'Berlin' })),
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
