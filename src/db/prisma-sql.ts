/**
 * A Prisma interactive transaction as the raw-SQL transaction interface, so code written for
 * `SqlTransaction` (the webhook outbox) also runs inside a transaction a Prisma write opened.
 */
import type { PrismaClient, SqlTransaction } from './client.ts';

export function prismaSql(tx: PrismaClient): SqlTransaction {
  return {
    exec: async (text) => void (await tx.$executeRawUnsafe(text)),
    query: <Row,>(text: string, params: unknown[] = []) => tx.$queryRawUnsafe<Row[]>(text, ...params),
  };
}
