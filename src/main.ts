/**
 * Starts the service: configuration, database (migrated, first key and demo data when new), HTTP, and
 * a graceful shutdown on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the database,
 * exit 0). With WEB_CONCURRENCY > 1 on PostgreSQL, the primary prepares the database once and forks
 * that many workers sharing the port (node:cluster), so every core serves requests.
 */
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { databaseOptions, openDatabase, type Database } from './db/client.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { migrate } from './db/migrate.ts';
import { createLogger, type Logger } from './logger.ts';
import { prepareDatabase } from './startup.ts';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/** Human-readable lines on a terminal, JSON for log collectors (LOG_FORMAT overrides). */
const prettyLogs = (config: Config): boolean =>
  config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT === 'auto' && Boolean(process.stdout.isTTY));

/** Where the data lives, for the log: never the connection string (it may hold a password). */
const databaseLabel = (config: Config): string =>
  config.DATABASE_URL ? `PostgreSQL at ${new URL(config.DATABASE_URL).host}` : `embedded PGlite in ${config.DATA_DIR}`;

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, pretty: prettyLogs(config) });
  if (cluster.isWorker) {
    await serve(config, await openDatabase(databaseOptions(config)), logger.child({ worker: cluster.worker?.id }));
    return;
  }

  // Each step is logged as it starts, so a slow one (the first demo load takes a while) is visible.
  logger.info({ node: process.version, pid: process.pid }, 'starting');
  logger.info({ database: databaseLabel(config) }, 'opening the database');
  const db = await openDatabase(databaseOptions(config));
  // Start-up work runs to its end on the embedded database too (src/db/types.ts, withoutStatementTimeout).
  const startUp = <T,>(work: () => Promise<T>): Promise<T> => db.withoutStatementTimeout?.(work) ?? work();
  logger.info('applying migrations');
  const applied = await startUp(() => migrate(db.sessionSql));
  logger.info({ applied }, applied.length ? `applied ${applied.length} migration(s)` : 'database schema is up to date');
  await startUp(() => prepareDatabase({ config, db, logger }));

  const workers = db.kind === 'pglite' ? 1 : config.WEB_CONCURRENCY;
  if (config.WEB_CONCURRENCY > 1 && workers === 1) {
    logger.warn('WEB_CONCURRENCY needs DATABASE_URL: the embedded database is opened by one process only');
  }
  if (workers === 1) {
    await serve(config, db, logger);
    return;
  }
  await db.close();
  superviseWorkers(workers, config, logger);
}

async function serve(config: Config, db: Database, logger: Logger): Promise<void> {
  logger.info('building the API: GraphQL schema, REST routes, OpenAPI document');
  // Loaded here rather than at the top, so the first log lines appear before this large module graph loads.
  const { createApp } = await import('./app.ts');
  const { createHttpServer } = await import('./http/server.ts');
  const app = createApp({ config, db, logger });
  let stopping = false;
  // While stopping, every response tells a keep-alive client to close its connection, so it reconnects
  // to another instance instead of being served here until the deadline.
  const server = createHttpServer((req, res) => {
    if (stopping) res.setHeader('Connection', 'close');
    app(req, res);
  });
  server.listen(config.PORT, config.HOST, () => {
    logger.info(
      { url: config.PUBLIC_URL, port: (server.address() as AddressInfo).port, database: db.kind, graphiql: config.GRAPHIQL ? `${config.PUBLIC_URL}/graphql` : false },
      'listening',
    );
  });
  onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => {
    stopping = true;
    // In-flight requests get the timeout less a reserve for storing usage and closing the database;
    // then their connections are cut.
    const drainMs = Math.max(0, config.SHUTDOWN_TIMEOUT_MS - SHUTDOWN_RESERVE_MS);
    const forced = setTimeout(() => server.closeAllConnections(), drainMs);
    forced.unref();
    const closed = closeServer(server); // stops accepting; resolves when the last connection is gone
    server.closeIdleConnections();
    await closed;
    clearTimeout(forced);
    await app.usage.flush(); // every counted request is stored before the database closes
    await app.close();
    await db.close();
  });
}

function superviseWorkers(count: number, config: Config, logger: Logger): void {
  let stopping = false;
  for (let index = 0; index < count; index += 1) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error({ worker: worker.id, code, signal }, 'worker died; starting another');
    cluster.fork();
  });
  onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS + 6_000, async () => {
    stopping = true;
    const exits = Object.values(cluster.workers ?? {}).map(
      (worker) => new Promise<void>((resolve) => (worker!.isDead() ? resolve() : worker!.once('exit', () => resolve()))),
    );
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    const deadline = setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, config.SHUTDOWN_TIMEOUT_MS + 5_000);
    deadline.unref();
    await Promise.all(exits);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** What a stop keeps of SHUTDOWN_TIMEOUT_MS for after the requests: storing usage, closing the database. */
const SHUTDOWN_RESERVE_MS = 1_000;

function onShutdownSignal(logger: Logger, timeoutMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, timeoutMs }, 'shutting down');
    // The promise to operators: the process is gone within the timeout, whatever is still running
    // (a query still in the database is cancelled when its connection closes with the process).
    setTimeout(() => {
      logger.warn('shutdown timeout reached; exiting with work still running');
      process.exit(0);
    }, timeoutMs).unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

main().catch((error: unknown) => {
  // A locked data directory is an operator's situation, not a bug: the message says it all.
  const text = error instanceof DataDirLockedError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`Failed to start: ${text}\n`);
  process.exit(1);
});
