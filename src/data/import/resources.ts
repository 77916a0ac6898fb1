import type { z } from 'zod';
import { entitySchema, investorSchema } from './schemas/entity.ts';
import { founderSchema } from './schemas/founder.ts';
import { transactionSchema, valuationSchema } from './schemas/deal.ts';
import { newsSchema } from './schemas/news.ts';
import type { ImportResource } from './types.ts';
import type { Parsed, WriteContext } from './writers/context.ts';
import { writeEntities, writeInvestors } from './writers/entities.ts';
import { writeFounders } from './writers/founders.ts';
import { writeTransactions, writeValuations } from './writers/deals.ts';
import { writeNews } from './writers/news.ts';

/** How one resource's records are validated and written. */
export interface ResourceHandler<T extends { id: number }> {
  schema: z.ZodType<T, unknown>;
  write(context: WriteContext, batch: readonly Parsed<T>[]): Promise<void>;
}

function handler<T extends { id: number }>(
  schema: z.ZodType<T, unknown>,
  write: (context: WriteContext, batch: readonly Parsed<T>[]) => Promise<void>,
): ResourceHandler<{ id: number }> {
  return { schema, write } as unknown as ResourceHandler<{ id: number }>;
}

export const HANDLERS: Record<ImportResource, ResourceHandler<{ id: number }>> = {
  entities: handler(entitySchema, writeEntities),
  investors: handler(investorSchema, writeInvestors),
  founders: handler(founderSchema, writeFounders),
  transactions: handler(transactionSchema, writeTransactions),
  valuations: handler(valuationSchema, writeValuations),
  news: handler(newsSchema, writeNews),
};
