import { builder } from './builder.ts';
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
  read: 'read:valuations',
  filter: 'valuations',
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
    id: t.exposeInt('id'),
    entity: t.relation('entity'),
    valuation_usd: t.expose('valuation_usd', { type: 'Money' }),
    date: t.expose('date', { type: 'Date' }),
    source: t.exposeString('source'),
    transaction_id: t.exposeInt('transaction_id', { nullable: true }),
    transaction: t.relation('transaction', { nullable: true }),
  }),
});

builder.prismaObjectField('Entity', 'valuations', (t) =>
  t.relation('valuations', { type: Valuation, query: { orderBy: [{ date: 'desc' }, { id: 'asc' }] } }),
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
