/**
 * PostgreSQL through a pg pool: Prisma's driver adapter on it, the raw-SQL interface, named statements,
 * cancellation of an abandoned read from a connection of its own.
 */
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { listenPostgres } from '../sql/listen.ts';
import { recordStatement } from '../sql/statement-capture.ts';
import { STREAM_BATCH_ROWS, streamPostgres } from './cursor.ts';
import { quoteIdentifier } from './identifier.ts';
import { createPrismaClient } from './prisma-client.ts';
import { spentError, StatementBoundClient } from './statement-bound.ts';
import { ClientLeftBeforeStatement } from './unavailable.ts';
import type { CancelSignal, Database, DatabaseOptions, SqlClient } from './types.ts';

const CONNECTION_CHECK_INTERVAL_MS = 1_000;

const rowsOf = <Row,>(result: pg.QueryResult): Row[] => result.rows as Row[];

/** One name per distinct statement text and parameter types. */
function statementName(query: { sql: string; args: readonly unknown[]; argTypes: readonly unknown[] }): string {
  recordStatement(query);
  return `p${createHash('sha1').update(query.sql).update(JSON.stringify(query.argTypes)).digest('base64url')}`;
}

/** Behind a transaction-mode pooler: statements are still reported, but sent unnamed. */
function unnamedStatement(query: { sql: string; args: readonly unknown[]; argTypes: readonly unknown[] }): string {
  recordStatement(query);
  return undefined as unknown as string; // PrismaPg's type says string; pg sends no name for undefined
}

/**
 * Our own prepared reads' names: their parameters are untyped, so the text alone names them. A text
 * recurs with its operation and filter shape, so names are remembered (hashing a long statement on
 * every request showed in profiles); the memory is bounded by forgetting everything when it fills.
 */
const readNames = new Map<string, string>();
const READ_NAMES_KEPT = 2_000;
function readName(text: string): string {
  let name = readNames.get(text);
  if (name === undefined) {
    if (readNames.size >= READ_NAMES_KEPT) readNames.clear();
    name = `r${createHash('sha1').update(text).digest('base64url')}`;
    readNames.set(text, name);
  }
  return name;
}

/**
 * Asks PostgreSQL to cancel what a session is running, from a connection of its own: the pool may be
 * the very thing abandoned requests have exhausted. Best effort: a failure leaves the statement timeout.
 */
async function cancelBackend(url: string, processId: number | undefined): Promise<void> {
  if (processId === undefined) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT pg_cancel_backend($1)', [processId]);
  } catch {
    // The statement then ends at the statement timeout, as before.
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The pool listens for a connection's errors only while it is idle: a checked-out one that the server
 * ends (a shutdown's FATAL between two statements) would emit an unhandled 'error' and stop the process.
 * Returns what to release the client with: the error, so the pool discards the connection.
 */
function watchCheckedOut(client: pg.PoolClient): () => Error | undefined {
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  return () => {
    client.removeListener('error', onError);
    return lost;
  };
}

export async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const schema = options.schema;
  // Behind a transaction-mode pooler no session setting rides in the startup packet (PgBouncer refuses
  // unknown startup parameters, and a session would not follow the next transaction to its server
  // connection): the role's own settings (ALTER ROLE ... SET) provide them there.
  const pooled = options.directUrl !== undefined;
  // A statement whose client connection is gone (this process stopped at its shutdown deadline, or
  // died) is cancelled by PostgreSQL within a second instead of running on (PostgreSQL 14+). No JIT:
  // the service's statements read few rows, and a plan whose estimate passes jit_above_cost (a search
  // over unknown text at 1M rows) would spend a second compiling what runs in milliseconds.
  const startup = [`-c client_connection_check_interval=${CONNECTION_CHECK_INTERVAL_MS}`, '-c jit=off', ...(schema ? [`-c search_path=${quoteIdentifier(schema)}`] : [])].join(' ');
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Each session keeps a bounded number of named statements (statement names below), since filters
    // make the set of statement texts open-ended; a session that reached its bound is retired when released.
    Client: StatementBoundClient,
    // Bounded waits: a database that is down or saturated answers 503 (src/db/unavailable.ts) instead
    // of holding requests, /readyz and the token endpoint until clients give up.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    ...(pooled ? {} : { ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}), options: startup }),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  if (schema && !options.readOnly) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
  // Named statements are parsed and planned once per connection, not on every request. A pooler in
  // transaction mode (PgBouncer before 1.21) cannot keep them: a name parsed on one server connection
  // is unknown on the next, so there every statement is unnamed.
  const adapter = new PrismaPg(pool, { ...(schema ? { schema } : {}), statementNameGenerator: pooled ? unnamedStatement : statementName });
  const prisma = createPrismaClient(options.wrapAdapter ? options.wrapAdapter(adapter) : adapter, options);

  const sql: SqlClient = {
    exec: async (text) => void (await pool.query(text)),
    query: async <Row,>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as Row[],
    prepared: <Row,>(text: string, params: readonly unknown[], signal?: CancelSignal): Promise<Row[]> => {
      if (signal?.aborted) return Promise.reject(new ClientLeftBeforeStatement());
      options.onQuery?.(text);
      // pg copies the query config and maps the values into a new array: neither is changed.
      const query = pooled ? { text, values: params as unknown[] } : { name: readName(text), text, values: params as unknown[] };
      // Behind a pooler the session's process id is the pooler's own, not a server process to cancel:
      // an abandoned statement there ends at the server's statement timeout.
      if (!signal || pooled) return pool.query(query).then(rowsOf<Row>);
      // pg's callbacks inside one promise: a read served this way is one promise, not one per step.
      return new Promise<Row[]>((resolve, reject) => {
        pool.connect((connectError, client, done) => {
          if (connectError || !client) {
            reject(connectError);
            return;
          }
          if (signal.aborted) {
            done();
            reject(new ClientLeftBeforeStatement());
            return;
          }
          let cancelled = false;
          // pg keeps the session's process id (BackendKeyData) without declaring it in its types.
          const cancel = () => {
            cancelled = true;
            void cancelBackend(url, (client as unknown as { processID?: number }).processID);
          };
          signal.addEventListener('abort', cancel, { once: true });
          const lost = watchCheckedOut(client);
          const finish = (queryError: Error | undefined, result?: pg.QueryResult) => {
            signal.removeEventListener('abort', cancel);
            // A cancel sent for this statement may land after it ended: the session is not lent again, or
            // the cancel would stop whatever ran on it next (a usage flush at shutdown, say).
            done(cancelled ? new Error('a cancel was sent to this session') : (lost() ?? spentError(client)));
            if (queryError) reject(queryError);
            else resolve(result!.rows as Row[]);
          };
          try {
            client.query(query, finish);
          } catch (error) {
            finish(error as Error);
          }
        });
      });
    },
    stream: async function* <Row,>(text: string, params: readonly unknown[], signal?: CancelSignal, batchRows = STREAM_BATCH_ROWS) {
      options.onQuery?.(text);
      const client = await pool.connect();
      if (signal?.aborted) {
        client.release();
        throw new ClientLeftBeforeStatement();
      }
      const lost = watchCheckedOut(client);
      // Behind a pooler the session's process id is the pooler's: the server's statement timeout ends it.
      const processId = (client as unknown as { processID?: number }).processID;
      const cancel = pooled ? undefined : () => void cancelBackend(url, processId);
      const release = (error?: Error) => client.release(error ?? lost() ?? spentError(client));
      // A consumer that stops reading holds a connection: at most a statement timeout between two batches.
      yield* streamPostgres<Row>({ client, cancel, release }, text, params, { signal, batchRows, idleMs: options.statementTimeoutMs });
    },
    transaction: async (work) => {
      const client = await pool.connect();
      const lost = watchCheckedOut(client);
      try {
        await client.query('BEGIN');
        const result = await work({
          exec: async (text) => void (await client.query(text)),
          query: async <Row,>(text: string, params: unknown[] = []) =>
            (await client.query(text, params)).rows as Row[],
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release(lost() ?? spentError(client));
      }
    },
    listen: (channel, handlers) =>
      listenPostgres(
        // LISTEN holds a session: behind a pooler, at the server itself.
        { connectionString: options.directUrl ?? url, ...(schema ? { options: `-c search_path=${quoteIdentifier(schema)}` } : {}) },
        channel,
        handlers,
      ),
  };

  // Behind a pooler: one session at the server itself, connected on first use (migrations at
  // start-up) and closed by its pool once idle.
  const direct = pooled ? await openPostgres(options.directUrl!, { ...options, url: options.directUrl, directUrl: undefined, poolSize: 1 }) : undefined;

  return {
    kind: 'postgres',
    prisma,
    sql,
    adapter,
    sessionSql: direct?.sql ?? sql,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
      await direct?.close();
    },
  };
}
