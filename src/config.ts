/**
 * The service's configuration: the environment, parsed once with zod and frozen.
 * A bad variable stops the start with a message naming it (see README, "Configuration").
 */
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

const optionalUrl = z.url().optional();

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** The service's base address: the tokens' `iss` and the expected `aud`. No trailing slash. */
  PUBLIC_URL: z.url().optional(),
  /** Where clients obtain tokens; defaults to PUBLIC_URL (the built-in token endpoint). */
  AUTH_URL: optionalUrl,
  /** PostgreSQL connection string; unset means the embedded PGlite database under DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  /**
   * PostgreSQL itself when DATABASE_URL is a transaction-mode pooler (PgBouncer): migrations and LISTEN
   * need a session of their own. Setting it says DATABASE_URL is such a pooler (docs/operations.md).
   */
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  // How long a request waits for a connection (a new one, or a free one of the pool) before 503.
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  // The longest a single SQL statement may run; the database cancels it after that (503).
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  /**
   * Streaming replicas that serve the data reads (comma-separated PostgreSQL URLs; docs/operations.md,
   * "Read replicas"). PostgreSQL only: with the embedded database it stops the start.
   */
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((value) => value.split(',').map((url) => url.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, 'each URL must start with postgres:// or postgresql://')))
    .default([]),
  // A replica further behind the primary than this is skipped until it catches up.
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).default(5_000),
  // How often each replica's replay position and lag are checked (and a down one tried again).
  DATABASE_REPLICA_CHECK_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  // include_total counts exactly up to this many expected matches, then gives the planner's estimate;
  // 0 (the default) always counts exactly: an estimate is a trade a deployment opts into.
  EXACT_TOTAL_LIMIT: z.coerce.number().int().min(0).default(0),
  /**
   * Serve reads from compiled SQL (src/compile), the resolvers answering only what it does not cover;
   * `false` serves everything through the resolvers (the reference the compiled answers are tested against).
   */
  COMPILED_READS: booleanFlag.default(true),
  /**
   * Records one GraphQL document may reach, counted from its lists' sizes (src/graphql/fan-out-cost.ts).
   * A full REST-sized page (500 entities with their tags and founders) costs 10,500; a nested query that
   * could read hundreds of thousands of rows is refused. A deployment that wants heavier reads raises it.
   */
  GRAPHQL_MAX_FAN_OUT: z.coerce.number().int().min(1).default(25_000),
  DATA_DIR: z.string().min(1).default('./data'),
  /** Load the bundled demo data set when the database has no entities. */
  LOAD_DEMO_DATA: booleanFlag.default(true),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `pretty`: human-readable lines; `json`: one JSON object a line; `auto`: pretty on a terminal. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  GRAPHIQL: booleanFlag.default(true),
  /** Lifetime of issued access tokens, in seconds. */
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(2_592_000).default(86_400),
  /** A private signing key as a JWK (JSON); unset means one generated on first start and stored. */
  SIGNING_KEY_JWK: z.string().optional(),
  OIDC_ISSUER: optionalUrl,
  OIDC_JWKS_URL: optionalUrl,
  OIDC_AUDIENCE: z.string().min(1).optional(),
  ADMIN_CLIENT_ID: z.string().min(1).optional(),
  ADMIN_CLIENT_SECRET: z.string().min(1).optional(),
  ADMIN_ORG: z.string().min(1).default('default'),
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(50),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(100),
  /** A shared store for rate limits across instances (redis://...). */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  /** Worker processes serving requests (node:cluster); 1 serves from the main process. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * How often counted usage is written (src/usage/). At most 4 s, so a read reflects requests within
   * 5 seconds; it is also the most a crash (SIGKILL) can lose.
   */
  USAGE_FLUSH_INTERVAL_MS: z.coerce.number().int().min(50).max(4_000).default(1_000),
  /** Changes older than this many days are pruned from the feed (docs/changes.md); an older cursor is 410. */
  CHANGES_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** How often the feed's followers (ecosystem membership, webhook events) look for new changes. */
  CHANGES_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /**
   * `false` runs no background work in this process (followers of the changes feed, retention): for a
   * process that only serves requests while others do that work, and for tests that count statements.
   */
  BACKGROUND_WORKERS: booleanFlag.default(true),
  /** Days an export's files are kept; then the export reads `expired` and its files 410 (docs/exports.md). */
  EXPORT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(7),
  /** How often the worker looks for a queued export (a new export also wakes it at once on its instance). */
  EXPORT_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1_000),
  /** A file of an export holds at most this many rows (then the next file starts). */
  EXPORT_FILE_MAX_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(1_000_000),
  /**
   * Rows an export reads per statement (a keyset page of the list; at most the smallest list maximum).
   * Unset: 500 on PostgreSQL, 200 on the embedded database, whose one connection a read by id waits for.
   */
  EXPORT_PAGE_ROWS: z.coerce.number().int().min(1).max(500).optional(),
  /**
   * Statements one export runs at once, each over its own range of ids (docs/exports.md). Unset: 2 on
   * PostgreSQL (a 2-core server's both cores read), 1 on the embedded database (it runs one at a time).
   */
  EXPORT_READERS: z.coerce.number().int().min(1).max(8).optional(),
  /** How long a running export's lease lasts without being renewed: then another instance takes it over. */
  EXPORT_LEASE_MS: z.coerce.number().int().min(200).default(60_000),
  /**
   * Usage older than this many days is dropped, a whole month at a time (src/usage/partitions.ts). The
   * default keeps more than the longest series one request may ask for (366 days); 0 keeps everything.
   */
  USAGE_RETENTION_DAYS: z.coerce.number().int().min(0).default(400),
  /** `false` turns usage counting off: for measuring what counting costs (bench/), not for service. */
  USAGE_COUNTING: booleanFlag.default(true),
  /**
   * Webhooks (docs/webhooks.md). `true` lets webhook URLs point at loopback, private, link-local and
   * other special-purpose addresses: for a deployment whose receivers are on its own network.
   */
  WEBHOOK_ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  /**
   * 32 random bytes, base64 (`openssl rand -base64 32`): webhook secrets are then stored encrypted with
   * it (src/changes/secret-box.ts). Keep it: secrets stored under it cannot be used without it.
   */
  WEBHOOK_SECRET_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(value), 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
    .optional(),
  /** How long a receiver has to answer one delivery attempt. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Delays (ms, comma-separated) before the 1st, 2nd ... retry; a delivery fails after the last. Default: src/changes/retry-schedule.ts. */
  WEBHOOK_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be delays in milliseconds, comma-separated, e.g. 5000,300000')
    .transform((value) => value.split(',').map(Number))
    .optional(),
  /** How often a deliverer looks for due deliveries without being woken (retries fall due this way). */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /**
   * How long a claimed delivery stays reserved for the instance attempting it: an instance that dies
   * mid-attempt leaves it to another after this. Longer than WEBHOOK_TIMEOUT_MS.
   */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(200).default(60_000),
  /** Days webhook events, their deliveries and the delivery log are kept once nothing of them is pending. */
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Deliveries one instance attempts at the same time. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * Memory for the compressed forms of read answers, so the same answer is compressed once
   * (src/http/compressed-answers.ts); 0 compresses every answer anew.
   */
  COMPRESSION_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(16),
  /** Browser origins allowed to call the API (comma-separated, e.g. https://app.example.com), or `*`. Unset: CORS off. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.union([
      z.literal('*'),
      z.string().regex(/^https?:\/\/[^/\s?#]+$/, 'each origin must be scheme://host[:port] with no path, e.g. https://app.example.com'),
    ]))),
});

type ParsedEnvironment = z.infer<typeof environmentSchema>;

export type Config = Readonly<
  Omit<ParsedEnvironment, 'PUBLIC_URL' | 'AUTH_URL'> & { PUBLIC_URL: string; AUTH_URL: string }
>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  if (parsed.data.DATABASE_REPLICA_URLS.length && !parsed.data.DATABASE_URL) {
    throw new ConfigError('Invalid configuration:\n  DATABASE_REPLICA_URLS: read replicas need PostgreSQL: set DATABASE_URL to the primary');
  }
  if (parsed.data.DATABASE_DIRECT_URL && !parsed.data.DATABASE_URL) {
    throw new ConfigError('Invalid configuration:\n  DATABASE_DIRECT_URL: needs DATABASE_URL (the pooler it bypasses)');
  }
  if (parsed.data.WEBHOOK_LEASE_MS <= parsed.data.WEBHOOK_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration:\n  WEBHOOK_LEASE_MS: must be longer than WEBHOOK_TIMEOUT_MS (an attempt must end within its lease)');
  }
  const publicUrl = (parsed.data.PUBLIC_URL ?? `http://localhost:${parsed.data.PORT}`).replace(/\/+$/, '');
  return Object.freeze({
    ...parsed.data,
    PUBLIC_URL: publicUrl,
    AUTH_URL: (parsed.data.AUTH_URL ?? publicUrl).replace(/\/+$/, ''),
  });
}
