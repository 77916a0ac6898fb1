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
    id: t.int(column('investor_id')),
    name: t.string(followColumn(['investor', 'entity'], 'name')),
    is_lead: t.boolean(column('is_lead')),
    investor: t.field({ type: Investor, ...follow(['investor']) }),
  }),
});

export const Transaction = builder.prismaObject('FundingRound', {
  extensions: TRANSACTIONS.owns(),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  name: 'Transaction',
  fields: (t) => ({
    id: t.int(column('id')),
    entity: t.field({ type: Entity, ...follow(['entity']) }),
    round_type: t.string(column('round_type')),
    amount_usd: t.field({ type: 'Money', nullable: true, ...column('amount_usd') }),
    currency: t.string(column('currency')),
    date: t.field({ type: 'Date', ...column('date') }),
    valuation_usd: t.field({ type: 'Money', nullable: true, ...column('valuation_usd') }),
    investors: t.field({
      type: [TransactionInvestor],
      ...follow([['investors', { orderBy: [{ is_lead: 'desc' }, { investor_id: 'asc' }] }]]),
    }),
    source_url: t.string(column('source_url')),
  }),
});

builder.prismaObjectField('Entity', 'rounds', (t) =>
  t.field({ type: [Transaction], ...follow([['rounds', { orderBy: [{ date: 'desc' }, { id: 'asc' }] }]]) }),
);

builder.prismaObjectField('Investor', 'rounds', (t) =>
  t.field({ type: [Transaction], ...follow([['rounds', { orderBy: { round_id: 'asc' } }], 'round']) }),
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
