/**
 * Opens the database: embedded PGlite (persisted under a folder, or in memory) or a PostgreSQL server
 * through a pg pool. Both give the same Prisma client and the same small raw-SQL interface, so the rest
 * of the service never asks which one it has.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import type { Config } from '../config.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { listenPglite, listenPostgres, type NotificationHandlers, type Subscription } from '../sql/listen.ts';
import { recordStatement } from '../sql/statement-capture.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { withReplicas, type ReplicaOptions, type ReplicaSet } from './replicas.ts';

export type { PrismaClient } from './generated/prisma/client.ts';

/**
 * What a read listens to for its client leaving: an AbortSignal satisfies it, and so does the lighter
 * one an HTTP request carries (src/http/client-gone.ts).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Raw SQL for what Prisma does not do: migrations, COPY-like bulk loads, advisory locks. */
export interface SqlClient {
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /**
   * A read the database parses and plans once per connection (named by the text's digest, as Prisma's
   * statements are): the compiled reads (src/compile), whose texts repeat with the operation. When
   * `signal` aborts (the client left), PostgreSQL cancels the statement; the embedded database has
   * no second session to cancel from and lets it finish.
   */
  prepared<Row = Record<string, unknown>>(sql: string, params: readonly unknown[], signal?: CancelSignal): Promise<Row[]>;
  /** Runs `work` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(work: (sql: SqlTransaction) => Promise<T>): Promise<T>;
  /** LISTENs on a channel (src/sql/listen.ts); absent on a transaction's client. */
  listen?(channel: string, handlers: NotificationHandlers): Subscription;
}

/** What a transaction's work gets: statements on the transaction's one connection. */
export type SqlTransaction = Pick<SqlClient, 'exec' | 'query'>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly prisma: PrismaClient;
  readonly sql: SqlClient;
  /**
   * Raw SQL on sessions of their own at the server, for what a transaction-mode pooler cannot carry:
   * migrations. It is `sql` itself unless `directUrl` is set.
   */
  readonly sessionSql: SqlClient;
  /** The embedded database's data folder as one file, for `startFrom` (undefined on PostgreSQL). */
  dumpDataDir?(): Promise<Blob>;
  /** PostgreSQL: Prisma's driver adapter on this database's pool (a replica's reads fail over to it). */
  readonly adapter?: SqlDriverAdapterFactory;
  /** The read replicas (DATABASE_REPLICA_URLS, src/db/replicas.ts); undefined without any. */
  readonly replicas?: ReplicaSet;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; without it the embedded database is used. */
  url?: string | undefined;
  /** Folder for the embedded database; without it (and without url) it lives in memory. */
  dataDir?: string | undefined;
  /** PostgreSQL schema to use (tests give each file its own). */
  schema?: string | undefined;
  poolSize?: number | undefined;
  /** PostgreSQL: how long to wait for a connection, new or pooled (then the query fails as unavailable). */
  connectTimeoutMs?: number | undefined;
  /**
   * PostgreSQL: the server itself, when `url` is a transaction-mode pooler (PgBouncer). Migrations and
   * LISTEN use it; through the pooler statements are unnamed and no session setting is sent (a later
   * transaction may run on another server connection): docs/operations.md, "Behind PgBouncer".
   */
  directUrl?: string | undefined;
  /** PostgreSQL: statement_timeout of every connection (behind a pooler, the server's setting instead). */
  statementTimeoutMs?: number | undefined;
  /** Called with the text of every SQL statement Prisma sends (query counting in tests, debugging). */
  onQuery?: ((sql: string) => void) | undefined;
  /**
   * Embedded database in memory: start from this data folder (PGlite's `dumpDataDir`) instead of an
   * empty one. Creating a database runs initdb, several seconds; loading a dump takes about one.
   */
  startFrom?: Blob | undefined;
  /** PostgreSQL: streaming replicas to read from (src/db/replicas.ts). */
  replicas?: ReplicaOptions | undefined;
  /** PostgreSQL: a hot standby, which refuses every write (the schema is not created, only used). */
  readOnly?: boolean | undefined;
  /** PostgreSQL: wraps the driver adapter Prisma is given (a replica's failover to the primary). */
  wrapAdapter?: ((adapter: SqlDriverAdapterFactory) => SqlDriverAdapterFactory) | undefined;
}

function createPrismaClient(adapter: SqlDriverAdapterFactory, options: DatabaseOptions): PrismaClient {
  if (!options.onQuery) return new PrismaClient({ adapter });
  const onQuery = options.onQuery;
  const prisma = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  prisma.$on('query', (event) => onQuery(event.query));
  return prisma as unknown as PrismaClient;
}

/**
 * The configured database: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR/pglite
 * (its own folder, so nothing else in DATA_DIR, like admin-credentials.json, mixes with its files).
 */
export function databaseOptions(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_DIRECT_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'DATABASE_CONNECT_TIMEOUT_MS' | 'DATABASE_STATEMENT_TIMEOUT_MS'>
    & Partial<Pick<Config, 'DATABASE_REPLICA_URLS' | 'DATABASE_REPLICA_MAX_LAG_MS' | 'DATABASE_REPLICA_CHECK_INTERVAL_MS'>>,
): DatabaseOptions {
  return config.DATABASE_URL
    ? {
        url: config.DATABASE_URL,
        directUrl: config.DATABASE_DIRECT_URL,
        poolSize: config.DATABASE_POOL_SIZE,
        connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
        ...(config.DATABASE_REPLICA_URLS?.length
          ? { replicas: { urls: config.DATABASE_REPLICA_URLS, maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS, checkIntervalMs: config.DATABASE_REPLICA_CHECK_INTERVAL_MS } }
          : {}),
      }
    : { dataDir: join(config.DATA_DIR, 'pglite') };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (!options.url) {
    if (options.replicas) throw new Error('Read replicas need PostgreSQL (DATABASE_URL)');
    return openPglite(options);
  }
  const primary = await openPostgres(options.url, options);
  const { replicas, ...own } = options;
  return replicas ? withReplicas(primary, replicas, (url, wrapAdapter) => openPostgres(url, { ...own, readOnly: true, wrapAdapter })) : primary;
}

const PREPARED_STATEMENT_CONNECTION_USES = 5_000;

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

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
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
    // Connections are retired after this many queries: that bounds the prepared statements each one
    // accumulates (statement names below), since filters make the set of statement texts open-ended.
    maxUses: PREPARED_STATEMENT_CONNECTION_USES,
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
            done(cancelled ? new Error('a cancel was sent to this session') : lost());
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
        client.release(lost());
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

async function openPglite(options: DatabaseOptions): Promise<Database> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? lockDataDir(options.dataDir) : () => undefined;
  // pg_trgm backs name search (`name[contains]:air`), fuzzystrmatch the search's edit distance
  // (GET /api/search); PostgreSQL ships them in contrib, PGlite as bundles.
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(options.dataDir ?? 'memory://', {
      extensions: { pg_trgm, fuzzystrmatch },
      ...(options.startFrom && !options.dataDir ? { loadDataDir: options.startFrom } : {}),
    });
  } catch (error) {
    unlock();
    throw error;
  }
  const prisma = createPrismaClient(new PrismaPGlite(pglite), options);

  const sql: SqlClient = {
    exec: async (text) => void (await pglite.exec(text)),
    query: async <Row,>(text: string, params: unknown[] = []) => (await pglite.query<Row>(text, params)).rows,
    prepared: async <Row,>(text: string, params: readonly unknown[]) => {
      options.onQuery?.(text);
      return (await pglite.query<Row>(text, [...params])).rows;
    },
    transaction: (work) =>
      pglite.transaction((tx) =>
        work({
          exec: async (text) => void (await tx.exec(text)),
          query: async <Row,>(text: string, params: unknown[] = []) => (await tx.query<Row>(text, params)).rows,
        }),
      ),
    listen: (channel, handlers) => listenPglite(pglite, channel, handlers),
  };

  return {
    kind: 'pglite',
    prisma,
    sql,
    sessionSql: sql,
    dumpDataDir: () => pglite.dumpDataDir('none'),
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
      unlock();
    },
  };
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
