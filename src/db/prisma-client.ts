/** The Prisma client on a driver adapter, telling `onQuery` every statement it sends when asked to. */
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import { PrismaClient } from './generated/prisma/client.ts';
import type { DatabaseOptions } from './types.ts';

export function createPrismaClient(adapter: SqlDriverAdapterFactory, options: Pick<DatabaseOptions, 'onQuery'>): PrismaClient {
  if (!options.onQuery) return new PrismaClient({ adapter });
  const onQuery = options.onQuery;
  const prisma = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  prisma.$on('query', (event) => onQuery(event.query));
  return prisma as unknown as PrismaClient;
}
