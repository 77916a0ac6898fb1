// A session keeps at most MAX_NAMED_STATEMENTS named statements, whatever texts clients make the service
// send, and a session whose texts stay within that bound is never reconnected: the pool used to retire
// every session after 5,000 statements, which under load meant a new backend every few seconds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { MAX_NAMED_STATEMENTS } from '../../src/db/statement-bound.ts';
import type { Database } from '../../src/db/types.ts';
import { testPostgresUrl } from '../helpers/db.ts';

let db: Database;

beforeAll(async () => {
  db = await openDatabase({ url: testPostgresUrl(), poolSize: 1 });
});

afterAll(async () => {
  await db.close();
});

// Unnamed, so that looking does not add a statement of its own.
const session = async () =>
  (await db.sql.query<{ pid: number; kept: number }>('SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM pg_prepared_statements) AS kept'))[0]!;

/** A read as the compiled reads send it: named by its text, with a request's signal. */
const read = async (text: string, params: unknown[] = []) => db.sql.prepared<{ n: number }>(text, params, new AbortController().signal);

it('a session that keeps reading the same statements lives on', async () => {
  const { pid } = await session();
  for (let index = 0; index < 6_000; index += 1) expect((await read('SELECT $1::int AS n', [index]))[0]!.n).toBe(index);
  expect(await session()).toEqual({ pid, kept: 1 });
});

it('a session names at most its bound of texts; the next text runs unnamed, and the spent session is retired', async () => {
  const first = await session();
  for (let index = first.kept; index < MAX_NAMED_STATEMENTS; index += 1) await read(`SELECT ${index} AS n`);
  expect(await session()).toEqual({ pid: first.pid, kept: MAX_NAMED_STATEMENTS });

  // A text past the bound still answers, without a name: the session keeps no more than its bound. (A
  // read without a signal goes through the pool's own query, whose release this code does not decide.)
  expect(await db.sql.prepared(`SELECT ${MAX_NAMED_STATEMENTS} + 1 AS n`, [])).toEqual([{ n: MAX_NAMED_STATEMENTS + 1 }]);
  expect(await session()).toEqual({ pid: first.pid, kept: MAX_NAMED_STATEMENTS });
  // The next release it decides retires the spent session; the read itself is answered.
  expect(await read('SELECT 2 AS n')).toEqual([{ n: 2 }]);

  // Released spent, it was retired: the next read runs on a fresh session, which names its texts again.
  const fresh = await session();
  expect(fresh.pid).not.toBe(first.pid);
  expect(fresh.kept).toBe(0);
  expect(await read('SELECT 1 AS n')).toEqual([{ n: 1 }]);
  expect(await session()).toEqual({ pid: fresh.pid, kept: 1 });
});
