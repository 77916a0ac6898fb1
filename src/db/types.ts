/**
 * What the rest of the service sees of a database, whichever it is (src/db/client.ts opens one): the
 * Prisma client and a small raw-SQL interface, the same for the embedded database and PostgreSQL.
 */
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import type { NotificationHandlers, Subscription } from '../sql/listen.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { ReplicaOptions, ReplicaSet } from './replicas.ts';

/**
 * What a read listens to for its client leaving: an AbortSignal satisfies it, and so does the lighter
 * one an HTTP request carries (src/http/exchange.ts, `signal`).
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
   * no second session to cancel from and lets it finish, but sends no read of that client after it.
   */
  prepared<Row = Record<string, unknown>>(sql: string, params: readonly unknown[], signal?: CancelSignal): Promise<Row[]>;
  /**
   * One read whose rows come in batches of at most `batchRows` as the consumer asks for them (an
   * export of every group of an aggregate): one statement behind a cursor, so memory stays bounded
   * however many rows it has. PostgreSQL cancels it when `signal` aborts; stopping the iteration
   * closes the cursor. src/db/cursor.ts.
   */
  stream<Row = Record<string, unknown>>(sql: string, params: readonly unknown[], signal?: CancelSignal, batchRows?: number): AsyncIterable<Row[]>;
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
  /**
   * The embedded database: runs start-up work (migrations, the first demo load) with no deadline on
   * its statements, as PostgreSQL's long migrations run with `SET LOCAL statement_timeout = 0`; a
   * deadline there would stop a start whose migration backfills a large table, at every retry.
   */
  withoutStatementTimeout?<T>(work: () => Promise<T>): Promise<T>;
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
  /** statement_timeout of every statement (PostgreSQL: of every connection; behind a pooler, the server's setting instead). */
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
