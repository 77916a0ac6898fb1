import type { Prisma } from '../../db/generated/prisma/client.ts';
import { columnOf, grouping, registry } from './build.ts';
import { ENTITY_FIELDS } from './entities.ts';

const column = columnOf<Prisma.ValuationWhereInput>();

export const VALUATION_FIELDS = registry(
  'valuations',
  [],
  [
    column('id', 'int'),
    column('entity_id', 'int'),
    column('valuation_usd', 'money'),
    column('date', 'date'),
    column('source', 'string'),
    column('transaction_id', 'int', { nullable: true }),
  ],
  [],
  [grouping('entity', ['entity'], ENTITY_FIELDS)],
);
