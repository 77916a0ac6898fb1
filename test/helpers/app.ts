// The real app on a real port against a test database: requests go over HTTP like a client's.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { createApp } from '../../src/app.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { systemResolver, type ResolveHost } from '../../src/changes/webhook-url.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { openDatabase, type DatabaseOptions, type PrismaClient } from '../../src/db/client.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { createDemoDatabase } from './demo-database.ts';

export interface TestApp {
  url: string;
  db: TestDatabase;
  config: Config;
  /** Every log line written so far, as text (for "no secret in the logs" checks). */
  logs: string[];
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  db?: TestDatabase;
  /** Replaces the Prisma client the app uses (e.g. one extended to record queries). */
  prisma?: PrismaClient;
  /** The app's clock (default: the system's). */
  clock?: () => Date;
  /** Without `db`: told the text of every statement the app's own test database runs (statement counts). */
  onQuery?: (sql: string) => void;
  /** Without `db`: a database holding the demo data set (test/helpers/demo-database.ts). */
  demo?: boolean;
  /** How the app resolves webhook host names (default: the system's resolver, `.invalid` names refused without asking it). */
  resolveHost?: (hostname: string) => Promise<string[]>;
}

/**
 * The resolver an app gets unless its test names one: a `.invalid` name (RFC 6761: it never resolves),
 * which tests give webhooks whose deliveries must fail, fails at once as the system resolver would
 * answer it, without a DNS query (the test machines' resolver answers about one query in 40 only
 * after its 5 s retry); any other name goes to the system resolver.
 */
const withoutInvalidNames: ResolveHost = async (hostname) => {
  if (/\.invalid\.?$/i.test(hostname)) {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
  }
  return systemResolver(hostname);
};

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (options.demo ? await createDemoDatabase({ onQuery: options.onQuery }) : await createTestDatabase({ onQuery: options.onQuery }));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  // Listen first: PUBLIC_URL (the tokens' issuer and audience) must be the address clients use.
  const server: Server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    PORT: '0',
    LOAD_DEMO_DATA: 'false',
    PUBLIC_URL: url,
    // Tests fire requests faster than any client should; rate-limit tests set their own numbers.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    // Background work (followers of the changes feed) would add statements to tests that count them;
    // the tests of that work turn it on.
    BACKGROUND_WORKERS: 'false',
    ...options.env,
  });
  const logger: Logger = createLogger({ level: config.LOG_LEVEL, destination: sink });
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp({ config, db: { prisma: options.prisma ?? db.prisma, sql: db.sql, replicas: db.replicas }, logger, clock: options.clock, resolveHost: options.resolveHost ?? withoutInvalidNames });
  } catch (error) {
    server.close();
    throw error;
  }
  server.on('request', app);
  return {
    url,
    db,
    config,
    logs,
    fetch: (path, init) => fetch(`${url}${path}`, init),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      if (!options.db) await db.destroy();
    },
  };
}

/**
 * The app on a pool of its own (another URL, such as a proxy's, a size, timeouts) over the tables of
 * `direct`; closing the app closes that pool.
 */
export async function startTestAppOnPool(
  direct: TestDatabase,
  pool: Omit<DatabaseOptions, 'schema'> & { url: string },
  options: Omit<TestAppOptions, 'db'> = {},
): Promise<TestApp> {
  const db = await openDatabase({ ...pool, schema: direct.connection.schema });
  const app = await startTestApp({ ...options, db: { ...direct, ...db, destroy: () => db.close() } });
  const close = async () => {
    await app.close();
    await db.close();
  };
  return { ...app, close };
}
