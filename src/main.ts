/**
 * Starts the service: configuration, database (migrated, demo data if empty), HTTP, and a graceful
 * shutdown on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the database, exit 0).
 */
import type { Server } from 'node:http';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { databaseOptions, openDatabase, type Database } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { createLogger, type Logger } from './logger.ts';
import { prepareDatabase } from './startup.ts';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const logger = createLogger({ level: config.LOG_LEVEL });

  const db = await openDatabase(databaseOptions(config));
  const applied = await migrate(db.sql);
  if (applied.length) logger.info({ applied }, 'applied migrations');
  await prepareDatabase({ config, db, logger });

  const app = createApp({ config, db, logger });
  const server = app.listen(config.PORT, config.HOST, () => {
    logger.info(
      { url: config.PUBLIC_URL, database: db.kind, graphiql: config.GRAPHIQL ? `${config.PUBLIC_URL}/graphql` : false },
      'listening',
    );
  });
  installShutdown(server, db, config, logger);
}

function installShutdown(server: Server, db: Database, config: Config, logger: Logger): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const forced = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_TIMEOUT_MS);
    forced.unref();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    clearTimeout(forced);
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
