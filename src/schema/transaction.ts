import type { Prisma } from '../db/generated/prisma/client.ts';
import { idList, quantify } from '../filter/fields/build.ts';
import { builder } from './builder.ts';
import { Entity } from './entity.ts';
import { column, follow, followColumn } from './follow.ts';
import { Investor } from './investor.ts';
import { listArgs, listType } from './list.ts';
import { resolveList, type ListDefinition, type RecordDefinition } from './list-query.ts';
import { declareResource } from './resource.ts';

export const TRANSACTION_LIST: ListDefinition<'transactions'> = {
  resource: 'transactions',
  typeName: 'Transaction',
  maxLimit: 2000,
  defaultSort: 'id',
};

export const TRANSACTION_RECORD: RecordDefinition = { where: (id) => ({ id }) };

export const TRANSACTIONS = declareResource({
  name: 'transactions',
  replicaReads: true,
  description: 'Funding rounds with their investors.',
  read: 'read:transactions',
  filter: 'transactions',
  filters: {
    fields: [idList('investors', (q, id): Prisma.FundingRoundWhereInput => ({ investors: quantify(q, { investor_id: id }) }))],
    groupings: [
      { name: 'entity', path: ['entity'], resource: 'entities' },
      { name: 'investors', path: ['investors', 'investor'], resource: 'investors' },
    ],
  },
  lists: [TRANSACTION_LIST],
  rest: [
    { method: 'GET', path: '/api/transactions', operation: 'ListTransactions', kind: 'list' },
    { method: 'GET', path: '/api/transactions/{id}', operation: 'GetTransaction', kind: 'record', noun: 'Transaction' },
  ],
});

/** A round's investor as the transaction record shows it: `{id, name, is_lead}`, plus the profile. */
const TransactionInvestor = builder.prismaObject('RoundInvestor', {
  name: 'TransactionInvestor',
  select: { investor_id: true },
  fields: (t) => ({
    id: t.int(column('investor_id', { example: 23194 })),
    name: t.string(followColumn(['investor', 'entity'], 'name', { example: 'Example Ventures' })),
    is_lead: t.boolean(column('is_lead', { example: true })),
    investor: t.field({ type: Investor, ...follow(['investor'], { record: false }) }),
  }),
});

export const Transaction = builder.prismaObject('FundingRound', {
  extensions: TRANSACTIONS.owns(),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  name: 'Transaction',
  fields: (t) => ({
    id: t.int(column('id', { example: 7001 })),
    // The record nests `entity: {id, name}`; `entity.id` would read as a ref prefix, so filters name the column.
    entity: t.field({ type: Entity, ...follow(['entity'], { filter: { column: 'entity_id' } }) }),
    round_type: t.string(column('round_type', { example: 'series_b' })),
    amount_usd: t.field({ type: 'Money', nullable: true, ...column('amount_usd', { example: 60000000 }) }),
    currency: t.string(column('currency', { example: 'EUR' })),
    date: t.field({ type: 'Date', ...column('date', { example: '2020-03-12' }) }),
    valuation_usd: t.field({ type: 'Money', nullable: true, ...column('valuation_usd', { example: null }) }),
    investors: t.field({
      type: [TransactionInvestor],
      ...follow([['investors', { orderBy: [{ is_lead: 'desc' }, { investor_id: 'asc' }] }]]),
    }),
    source_url: t.string(column('source_url', { example: 'https://news.example.org/solaris-series-b' })),
  }),
});

builder.prismaObjectField('Entity', 'rounds', (t) =>
  t.field({ type: [Transaction], ...follow([['rounds', { orderBy: [{ date: 'desc' }, { id: 'asc' }] }]], { record: false }) }),
);

builder.prismaObjectField('Investor', 'rounds', (t) =>
  t.field({ type: [Transaction], ...follow([['rounds', { orderBy: { round_id: 'asc' } }], 'round'], { record: false }) }),
);

const TransactionList = listType('Transaction', Transaction);

builder.queryFields((t) => ({
  transactions: t.field({
    extensions: { ...TRANSACTIONS.reads, list: TRANSACTION_LIST },
    type: TransactionList,
    args: listArgs,
    resolve: (_root, args, context, info) =>
      resolveList(TRANSACTION_LIST, args, context, info, {
        findMany: (query) => context.prisma.fundingRound.findMany(query),
        count: (query) => context.prisma.fundingRound.count(query),
      }),
  }),
  transaction: t.prismaField({
    extensions: { ...TRANSACTIONS.reads, record: TRANSACTION_RECORD },
    type: Transaction,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) =>
      context.prisma.fundingRound.findFirst({ ...query, where: TRANSACTION_RECORD.where(args.id) }),
  }),
}));
