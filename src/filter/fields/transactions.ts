import type { Prisma } from '../../db/generated/prisma/client.ts';
import { columnOf, idList, quantify, registry } from './build.ts';

type Where = Prisma.FundingRoundWhereInput;
const column = columnOf<Where>();

/** Funding rounds, served as transactions. */
export const TRANSACTION_FIELDS = registry(
  'transactions',
  [],
  [
    column('id', 'int'),
    // The record nests `entity: {id, name}`; `entity.id` would read as a ref prefix, so the column name it is.
    column('entity_id', 'int'),
    column('round_type', 'string'),
    column('amount_usd', 'money', { nullable: true }),
    column('currency', 'string'),
    column('date', 'date'),
    column('valuation_usd', 'money', { nullable: true }),
    column('source_url', 'string'),
    idList('investors', (q, id): Where => ({ investors: quantify(q, { investor_id: id }) })),
  ],
);
