import { builder } from './builder.ts';
import { Entity } from './entity.ts';
import { column, follow } from './follow.ts';
import { Transaction } from './transaction.ts';
import { listArgs, listType } from './list.ts';
import { resolveList, type ListDefinition, type RecordDefinition } from './list-query.ts';
import { declareResource } from './resource.ts';

export const VALUATION_LIST: ListDefinition<'valuations'> = {
  resource: 'valuations',
  typeName: 'Valuation',
  maxLimit: 2000,
  defaultSort: 'id',
};

export const VALUATION_RECORD: RecordDefinition = { where: (id) => ({ id }) };

export const VALUATIONS = declareResource({
  name: 'valuations',
  replicaReads: true,
  description: 'Company valuations.',
  read: 'read:valuations',
  filter: 'valuations',
  filters: { groupings: [{ name: 'entity', path: ['entity'], resource: 'entities' }] },
  lists: [VALUATION_LIST],
  rest: [
    { method: 'GET', path: '/api/valuations', operation: 'ListValuations', kind: 'list' },
    { method: 'GET', path: '/api/valuations/{id}', operation: 'GetValuation', kind: 'record', noun: 'Valuation' },
  ],
});

export const Valuation = builder.prismaObject('Valuation', {
  extensions: VALUATIONS.owns(),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id', { example: 301 })),
    entity: t.field({ type: Entity, ...follow(['entity'], { filter: { column: 'entity_id' } }) }),
    valuation_usd: t.field({ type: 'Money', ...column('valuation_usd', { example: 1600000000 }) }),
    date: t.field({ type: 'Date', ...column('date', { example: '2021-06-01' }) }),
    source: t.string(column('source', { example: 'funding round' })),
    transaction_id: t.int({ nullable: true, ...column('transaction_id', { example: null }) }),
    transaction: t.field({ type: Transaction, nullable: true, ...follow(['transaction'], { record: false }) }),
  }),
});

builder.prismaObjectField('Entity', 'valuations', (t) =>
  t.field({ type: [Valuation], ...follow([['valuations', { orderBy: [{ date: 'desc' }, { id: 'asc' }] }]], { record: false }) }),
);

const ValuationList = listType('Valuation', Valuation);

builder.queryFields((t) => ({
  valuations: t.field({
    extensions: { ...VALUATIONS.reads, list: VALUATION_LIST },
    type: ValuationList,
    args: listArgs,
    resolve: (_root, args, context, info) =>
      resolveList(VALUATION_LIST, args, context, info, {
        findMany: (query) => context.prisma.valuation.findMany(query),
        count: (query) => context.prisma.valuation.count(query),
      }),
  }),
  valuation: t.prismaField({
    extensions: { ...VALUATIONS.reads, record: VALUATION_RECORD },
    type: Valuation,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) => context.prisma.valuation.findFirst({ ...query, where: VALUATION_RECORD.where(args.id) }),
  }),
}));
