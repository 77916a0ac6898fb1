/**
 * One read whose rows are fetched in batches behind a cursor (SqlClient.stream): the statement runs
 * once, and memory holds one batch at a time however many rows it has. An aggregate's export reads
 * its groups this way (src/rest/csv-export.ts), never one aggregate per page.
 */
import type pg from 'pg';
import type { PGliteInterface } from '@electric-sql/pglite';
import type { CancelSignal } from './types.ts';

export const STREAM_BATCH_ROWS = 500;

/** Each cursor its own name: on the embedded database's one session, several exports may be open at once. */
let cursors = 0;
const cursorName = (): string => `stream_${(cursors = (cursors + 1) % 1e9)}`;

export interface PostgresCursorSession {
  client: pg.PoolClient;
  /** Cancels what the session runs (from a connection of its own); undefined behind a pooler, where it cannot. */
  cancel: (() => void) | undefined;
  /** Gives the connection back: with an error, the pool discards it. */
  release(error?: Error): void;
}

/**
 * PostgreSQL: `DECLARE` in a read-only transaction, then `FETCH` until a short batch. Every statement
 * (the FETCH that computes an aggregate's groups is the costly one) is bounded by statement_timeout;
 * `idleMs` bounds how long the transaction may wait for a consumer that stopped reading (a client that
 * stalls past it gets its export cut, and the pool's connection back). A signal that aborts cancels the
 * statement running; stopping the iteration rolls the transaction back, which closes the cursor.
 */
export async function* streamPostgres<Row>(
  session: PostgresCursorSession,
  text: string,
  params: readonly unknown[],
  options: { signal?: CancelSignal | undefined; batchRows: number; idleMs?: number | undefined },
): AsyncGenerator<Row[]> {
  const { client, cancel } = session;
  let cancelled = false;
  const onAbort = () => {
    cancelled = true;
    cancel?.();
  };
  if (cancel) options.signal?.addEventListener('abort', onAbort, { once: true });
  let done = false;
  let failure: Error | undefined;
  try {
    await client.query('BEGIN READ ONLY');
    if (options.idleMs) await client.query(`SET LOCAL idle_in_transaction_session_timeout = ${Math.trunc(options.idleMs)}`);
    const name = cursorName();
    await client.query({ text: `DECLARE ${name} NO SCROLL CURSOR FOR ${text}`, values: params as unknown[] });
    for (;;) {
      const { rows } = await client.query(`FETCH ${options.batchRows} FROM ${name}`);
      if (rows.length) yield rows as Row[];
      if (rows.length < options.batchRows) break;
    }
    await client.query('COMMIT');
    done = true;
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (!done && !failure) await client.query('ROLLBACK').catch((error: Error) => (failure = error));
    // A cancel sent may land after the statement ended, and a failed session may be mid-transaction:
    // neither is lent again.
    session.release(cancelled ? new Error('a cancel was sent to this session') : failure);
  }
}

/**
 * The embedded database: one session, shared by every request, so no transaction may stay open while
 * a consumer reads. `DECLARE ... WITH HOLD` runs the statement to the end when it commits and keeps the
 * rows in the server's tuplestore (spilled to temporary files past work_mem), and each `FETCH` between
 * other requests' statements reads the next batch; stopping the iteration closes the cursor.
 */
export async function* streamPglite<Row>(pglite: Pick<PGliteInterface, 'query' | 'exec'>, text: string, params: readonly unknown[], batchRows: number): AsyncGenerator<Row[]> {
  const name = cursorName();
  await pglite.query(`DECLARE ${name} NO SCROLL CURSOR WITH HOLD FOR ${text}`, [...params]);
  try {
    for (;;) {
      const { rows } = await pglite.query<Row>(`FETCH ${batchRows} FROM ${name}`);
      if (rows.length) yield rows;
      if (rows.length < batchRows) break;
    }
  } finally {
    await pglite.exec(`CLOSE ${name}`).catch(() => undefined);
  }
}
