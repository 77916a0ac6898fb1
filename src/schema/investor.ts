import type { Prisma } from '../db/generated/prisma/client.ts';
import { idList, quantify } from '../filter/fields/build.ts';
import { builder } from './builder.ts';
import { column, follow, followColumn } from './follow.ts';
import { Entity } from './entity.ts';
import { listArgs, listType } from './list.ts';
import { resolveList, type ListDefinition, type RecordDefinition } from './list-query.ts';
import { declareResource } from './resource.ts';
import { Tag } from './tag.ts';

export const INVESTOR_LIST: ListDefinition<'investors'> = {
  resource: 'investors',
  typeName: 'Investor',
  maxLimit: 500,
  defaultSort: 'id',
  scope: () => ({ entity: { deleted_at: null } }),
};

export const INVESTOR_RECORD: RecordDefinition = {
  where: (id) => ({ id, entity: { deleted_at: null } }),
};

export const INVESTORS = declareResource({
  name: 'investors',
  replicaReads: true,
  description: 'Investor profiles with their figures and portfolios.',
  read: 'read:investors',
  filter: 'investors',
  filters: {
    refs: ['entity'],
    fields: [
      idList('tags', (q, id): Prisma.InvestorWhereInput => ({ entity: { tags: quantify(q, { tag_id: id }) } })),
      // The portfolio is every entity the investor has joined a round of.
      idList('portfolio', (q, id): Prisma.InvestorWhereInput => ({ rounds: quantify(q, { round: { entity_id: id } }) })),
    ],
    groupings: [{ name: 'tags', path: ['entity', 'tags', 'tag'], columns: ['name', 'type'] }],
  },
  lists: [INVESTOR_LIST],
  rest: [
    { method: 'GET', path: '/api/investors', operation: 'ListInvestors', kind: 'list' },
    { method: 'GET', path: '/api/investors/{id}', operation: 'GetInvestor', kind: 'record', noun: 'Investor' },
  ],
});

/** An investor profile; its id is its entity's id, and the descriptive fields are the entity's. */
export const Investor = builder.prismaObject('Investor', {
  extensions: INVESTORS.owns(),
  select: { id: true },
  fields: (t) => {
    // The descriptive fields live on the investor's entity; each selects only its own column.
    const ofEntity = (key: 'uuid' | 'name' | 'type' | 'image' | 'platform_url' | 'hq_country' | 'hq_city', example: string) =>
      t.string(followColumn(['entity'], key, { example }));
    return {
      id: t.int(column('id', { example: 23194 })),
      uuid: ofEntity('uuid', '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d'),
      name: ofEntity('name', 'Example Ventures'),
      type: ofEntity('type', 'investor'),
      image: ofEntity('image', ''),
      platform_url: ofEntity('platform_url', 'https://platform.example.org/entities/example-ventures'),
      hq_country: ofEntity('hq_country', 'Germany'),
      hq_city: ofEntity('hq_city', 'Munich'),
      launch_year: t.int({ nullable: true, ...followColumn(['entity'], 'launch_year', { example: 2009 }) }),
      total_invested_usd: t.field({ type: 'Money', ...column('total_invested_usd', { example: 420000000 }) }),
      investments_count: t.int(column('investments_count', { example: 61 })),
      portfolio_count: t.int(column('portfolio_count', { example: 48 })),
      exits_count: t.int(column('exits_count', { example: 9 })),
      lead_investments_count: t.int(column('lead_investments_count', { example: 22 })),
      tags: t.field({
        type: [Tag],
        ...follow(['entity', ['tags', { orderBy: { tag_id: 'asc' } }], 'tag'], { example: [{ id: 40, name: 'Venture capital', type: 'investor_type' }] }),
      }),
      entity: t.field({ type: Entity, ...follow(['entity'], { record: false }) }),
      portfolio: t.field({
        type: [Entity],
        description: 'Entities this investor took part in a round of, once each',
        ...follow([['rounds', { orderBy: { round_id: 'asc' } }], 'round', 'entity'], { distinctById: true, record: false }),
      }),
    };
  },
});

builder.prismaObjectField('Entity', 'investor_profile', (t) =>
  t.field({ type: Investor, nullable: true, description: 'The investor profile, for investor entities', ...follow(['investor'], { record: false }) }),
);

builder.prismaObjectField('Entity', 'investors', (t) =>
  t.field({
    type: [Investor],
    description: "Investors in any of the entity's rounds, once each: in the order of the rounds' ids, then of the investors' ids",
    ...follow([['rounds', { orderBy: { id: 'asc' } }], ['investors', { orderBy: { investor_id: 'asc' } }], 'investor'], { distinctById: true, record: false }),
  }),
);

const InvestorList = listType('Investor', Investor);

builder.queryFields((t) => ({
  investors: t.field({
    extensions: { ...INVESTORS.reads, list: INVESTOR_LIST },
    type: InvestorList,
    args: listArgs,
    resolve: (_root, args, context, info) =>
      resolveList(INVESTOR_LIST, args, context, info, {
        findMany: (query) => context.prisma.investor.findMany(query),
        count: (query) => context.prisma.investor.count(query),
      }),
  }),
  investor: t.prismaField({
    extensions: { ...INVESTORS.reads, record: INVESTOR_RECORD },
    type: Investor,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) =>
      context.prisma.investor.findFirst({ ...query, where: INVESTOR_RECORD.where(args.id) }),
  }),
}));
