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
    const ofEntity = (key: 'uuid' | 'name' | 'type' | 'image' | 'platform_url' | 'hq_country' | 'hq_city') =>
      t.string(followColumn(['entity'], key));
    return {
      id: t.int(column('id')),
      uuid: ofEntity('uuid'),
      name: ofEntity('name'),
      type: ofEntity('type'),
      image: ofEntity('image'),
      platform_url: ofEntity('platform_url'),
      hq_country: ofEntity('hq_country'),
      hq_city: ofEntity('hq_city'),
      launch_year: t.int({ nullable: true, ...followColumn(['entity'], 'launch_year') }),
      total_invested_usd: t.field({ type: 'Money', ...column('total_invested_usd') }),
      investments_count: t.int(column('investments_count')),
      portfolio_count: t.int(column('portfolio_count')),
      exits_count: t.int(column('exits_count')),
      lead_investments_count: t.int(column('lead_investments_count')),
      tags: t.field({ type: [Tag], ...follow(['entity', ['tags', { orderBy: { tag_id: 'asc' } }], 'tag']) }),
      entity: t.field({ type: Entity, ...follow(['entity']) }),
      portfolio: t.field({
        type: [Entity],
        description: 'Entities this investor took part in a round of, once each',
        ...follow([['rounds', { orderBy: { round_id: 'asc' } }], 'round', 'entity'], { distinctById: true }),
      }),
    };
  },
});

builder.prismaObjectField('Entity', 'investor_profile', (t) =>
  t.field({ type: Investor, nullable: true, description: 'The investor profile, for investor entities', ...follow(['investor']) }),
);

builder.prismaObjectField('Entity', 'investors', (t) =>
  t.field({
    type: [Investor],
    description: "Investors in any of the entity's rounds, once each: in the order of the rounds' ids, then of the investors' ids",
    ...follow([['rounds', { orderBy: { id: 'asc' } }], ['investors', { orderBy: { investor_id: 'asc' } }], 'investor'], { distinctById: true }),
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
