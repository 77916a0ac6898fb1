import type { Prisma } from '../../db/generated/prisma/client.ts';
import { columnOf, grouping, idList, quantify, registry } from './build.ts';
import { ENTITY_FIELDS } from './entities.ts';
import { INVESTOR_FIELDS } from './investors.ts';

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
  [],
  [grouping('entity', ['entity'], ENTITY_FIELDS), grouping('investors', ['investors', 'investor'], INVESTOR_FIELDS)],
);
