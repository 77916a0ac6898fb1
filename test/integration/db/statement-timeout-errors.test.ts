// A statement stopped by DATABASE_STATEMENT_TIMEOUT_MS is "the database cannot answer now" (503) however
// it reached us: from the SQL client, or wrapped by Prisma's client (a raw query, a model query, an
// interactive transaction), whose error carries the driver's in `meta.driverAdapterError`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../../src/db/generated/prisma/client.ts';
import { isConnectionFailure, isDatabaseUnavailable } from '../../../src/db/unavailable.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

const TIMEOUT_MS = 500;
const TOO_LONG = 'SELECT pg_sleep(2)';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ statementTimeoutMs: TIMEOUT_MS });
});

afterAll(async () => db?.destroy());

const failure = (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => expect.fail('the statement ran past the statement timeout'),
    (error: unknown) => error,
  );

describe('a statement past the statement timeout', () => {
  it.each([
    ['the SQL client', () => db.sql.query(TOO_LONG)],
    ["Prisma's raw query", () => db.prisma.$queryRawUnsafe(TOO_LONG)],
    ["Prisma's interactive transaction", () => db.prisma.$transaction(async (tx) => tx.$queryRawUnsafe(TOO_LONG))],
  ])('from %s is the database being unavailable, not a connection failure', async (_from, run) => {
    const error = await failure(run());
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isConnectionFailure(error)).toBe(false);
  });

  // What Prisma throws when its interactive transaction finds no session within maxWait: the embedded
  // database's one session is held while its thread restarts after a statement timeout.
  it('an interactive transaction that could not start in time is the database being busy, not a connection failure', () => {
    const error = new Prisma.PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', {
      code: 'P2028',
      clientVersion: Prisma.prismaVersion.client,
    });
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isConnectionFailure(error)).toBe(false);
    const closed = new Prisma.PrismaClientKnownRequestError('Transaction API error: Transaction already closed.', { code: 'P2028', clientVersion: Prisma.prismaVersion.client });
    expect(isDatabaseUnavailable(closed)).toBe(false);
  });

  it('leaves an error that is not the database\'s a 500', async () => {
    const error = await failure(db.prisma.$queryRawUnsafe('SELECT 1/0'));
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
