/**
 * Streaming read replicas (DATABASE_REPLICA_URLS; docs/operations.md, "Read replicas"). Each replica is
 * opened like the primary (a pg pool, a Prisma client, the compiled reads' named statements) and
 * checked every DATABASE_REPLICA_CHECK_INTERVAL_MS: its replay position (`pg_last_wal_replay_lsn()`)
 * and how far it is behind the primary. A replica answers reads only while it is `ready`: up, a
 * standby, and at most DATABASE_REPLICA_MAX_LAG_MS behind. A read that fails on a replica because it
 * cannot be reached is answered by the primary, and the replica waits for its next good check.
 *
 * Which reads may go to a replica, and read-your-writes, are the request's business
 * (src/graphql/read-routing.ts); this module only knows databases and WAL positions.
 */
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { CancelSignal, Database, SqlClient } from './types.ts';
import { isConnectionFailure } from './unavailable.ts';

export interface ReplicaOptions {
  urls: readonly string[];
  maxLagMs?: number | undefined;
  checkIntervalMs?: number | undefined;
}

/** `ready`: serves reads; `lagging`: further behind than the bound; `down`: unreachable, or not a standby. */
export type ReplicaState = 'ready' | 'lagging' | 'down';

/** What /readyz and /metrics show of a replica: a name and a host, never its URL (it may hold a password). */
export interface ReplicaStatus {
  readonly name: string;
  readonly host: string;
  readonly state: ReplicaState;
  /** How long ago the primary wrote the oldest WAL the replica has not replayed; null when unknown (down). */
  readonly lagMs: number | null;
  /** Reads this replica failed for a connection reason, answered by the primary instead. */
  readonly fallbacks: number;
}

/** A replica's clients for reads; each answers from the primary when the replica cannot be reached. */
export interface Replica {
  readonly name: string;
  readonly prisma: PrismaClient;
  readonly sql: Pick<SqlClient, 'prepared' | 'stream'>;
}

export interface ReplicaSet {
  /** A ready replica that has replayed `after` (a WAL position), in turn; undefined: read from the primary. */
  pick(after?: bigint): Replica | undefined;
  /**
   * The primary's WAL position now: a replica that has replayed it sees every write committed before.
   * The insert position, not the write position: with synchronous_commit off a commit record may not
   * be written out yet, and the replica must wait for it too.
   */
  writePosition(): Promise<bigint>;
  status(): readonly ReplicaStatus[];
  /** Checks every replica now (also done every check interval). */
  check(): Promise<void>;
}

/** Opens a replica's database: read-only, Prisma's adapter wrapped by `wrapAdapter`. */
export type OpenReplica = (url: string, wrapAdapter: (adapter: SqlDriverAdapterFactory) => SqlDriverAdapterFactory) => Promise<Database>;

const DEFAULT_MAX_LAG_MS = 5_000;
const DEFAULT_CHECK_INTERVAL_MS = 1_000;

/** `16/B374D848` → a number that orders like the position. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Where a URL points, without its credentials: `db-replica-1:5432/venture`. */
function hostOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

interface Member extends Replica {
  readonly host: string;
  readonly db: Database;
  state: ReplicaState;
  replayed: bigint;
  lagMs: number | null;
  fallbacks: number;
}

/** The primary with its replicas: `replicas` on the Database, closed with it. */
export async function withReplicas(primary: Database, options: ReplicaOptions, open: OpenReplica): Promise<Database> {
  if (!primary.adapter) throw new Error('Read replicas need PostgreSQL (DATABASE_URL)');
  const primaryAdapter = primary.adapter;
  const maxLagMs = options.maxLagMs ?? DEFAULT_MAX_LAG_MS;
  const intervalMs = options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;

  const members: Member[] = [];
  try {
    for (const [index, url] of options.urls.entries()) {
      let member: Member | undefined;
      const failed = () => {
        member!.state = 'down';
        member!.lagMs = null;
        member!.fallbacks += 1;
      };
      const db = await open(url, (adapter) => failingOver(adapter, primaryAdapter, failed));
      member = {
        name: `replica-${index + 1}`,
        host: hostOf(url),
        db,
        prisma: db.prisma,
        sql: { prepared: preparedFailingOver(db.sql, primary.sql, failed), stream: streamFailingOver(db.sql, primary.sql, failed) },
        state: 'down',
        replayed: 0n,
        lagMs: null,
        fallbacks: 0,
      };
      members.push(member);
    }
  } catch (error) {
    await Promise.all(members.map((member) => member.db.close()));
    throw error;
  }

  const writePosition = async () => {
    const [row] = await primary.sql.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    return parseLsn(row!.lsn);
  };

  // The primary's position at each check, oldest first: a replica's lag is the age of the oldest one it
  // has not replayed (measured with this process's clock, to within one check interval).
  const samples: { lsn: bigint; at: number }[] = [];
  const keepMs = maxLagMs + 2 * intervalMs;
  const lagOf = (replayed: bigint, now: number): number => {
    const behind = samples.find((sample) => sample.lsn > replayed);
    return behind ? now - behind.at : 0;
  };

  const checkOne = async (member: Member) => {
    try {
      const [row] = await withTimeout(
        member.db.sql.query<{ standby: boolean; replayed: string | null }>('SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed'),
        Math.max(intervalMs, 1_000),
      );
      // A promoted replica is a primary of its own now, no longer fed by ours: not read from.
      if (!row?.standby || !row.replayed) throw new Error('not a standby');
      member.replayed = parseLsn(row.replayed);
      member.lagMs = lagOf(member.replayed, Date.now());
      member.state = member.lagMs > maxLagMs ? 'lagging' : 'ready';
    } catch {
      member.state = 'down';
      member.lagMs = null;
    }
  };

  let checking: Promise<void> | undefined;
  const check = () => {
    checking ??= (async () => {
      try {
        const lsn = await writePosition();
        const now = Date.now();
        samples.push({ lsn, at: now });
        while (samples.length > 1 && samples[0]!.at < now - keepMs) samples.shift();
      } catch {
        // The primary is unreachable: no new sample, the replicas are still checked against the last ones.
      }
      await Promise.all(members.map(checkOne));
    })().finally(() => {
      checking = undefined;
    });
    return checking;
  };
  await check();
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();

  let turn = 0;
  const replicas: ReplicaSet = {
    pick: (after = 0n) => {
      for (let tried = 0; tried < members.length; tried += 1) {
        const member = members[(turn + tried) % members.length]!;
        if (member.state === 'ready' && member.replayed >= after) {
          turn = (turn + tried + 1) % members.length;
          return member;
        }
      }
      return undefined;
    },
    writePosition,
    status: () => members.map(({ name, host, state, lagMs, fallbacks }) => ({ name, host, state, lagMs, fallbacks })),
    check,
  };

  return {
    ...primary,
    replicas,
    close: async () => {
      clearInterval(timer);
      await checking;
      await Promise.all(members.map((member) => member.db.close()));
      await primary.close();
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Below Prisma, where its statements are already SQL (the tenant rule included): a statement the
 * replica cannot run for a connection reason runs on the primary instead.
 */
function failingOver(replica: SqlDriverAdapterFactory, primary: SqlDriverAdapterFactory, failed: () => void): SqlDriverAdapterFactory {
  return {
    provider: replica.provider,
    adapterName: replica.adapterName,
    connect: async () => {
      const [own, fallback] = await Promise.all([replica.connect(), primary.connect()]);
      const either = async <T>(run: (adapter: typeof own) => Promise<T>): Promise<T> => {
        try {
          return await run(own);
        } catch (error) {
          if (!isConnectionFailure(error)) throw error;
          failed();
          return run(fallback);
        }
      };
      return {
        provider: own.provider,
        adapterName: own.adapterName,
        queryRaw: (query) => either((adapter) => adapter.queryRaw(query)),
        executeRaw: (query) => either((adapter) => adapter.executeRaw(query)),
        executeScript: (script) => either((adapter) => adapter.executeScript(script)),
        startTransaction: (isolationLevel) => either((adapter) => adapter.startTransaction(isolationLevel)),
        ...(own.getConnectionInfo ? { getConnectionInfo: () => own.getConnectionInfo!() } : {}),
        dispose: async () => {
          await Promise.all([own.dispose(), fallback.dispose()]);
        },
      };
    },
  };
}

/** The compiled reads' statements likewise; a statement cancelled because its client left is not run again. */
function preparedFailingOver(replica: Pick<SqlClient, 'prepared'>, primary: Pick<SqlClient, 'prepared'>, failed: () => void): SqlClient['prepared'] {
  return async (sql, params, signal) => {
    try {
      return await replica.prepared(sql, params, signal);
    } catch (error) {
      if (signal?.aborted || !isConnectionFailure(error)) throw error;
      failed();
      return primary.prepared(sql, params, signal);
    }
  };
}

/** A stream likewise, while it has handed out no row: past the first batch, a failure cuts it. */
function streamFailingOver(replica: Pick<SqlClient, 'stream'>, primary: Pick<SqlClient, 'stream'>, failed: () => void): SqlClient['stream'] {
  return async function* <Row>(sql: string, params: readonly unknown[], signal?: CancelSignal, batchRows?: number) {
    let started = false;
    try {
      for await (const batch of replica.stream<Row>(sql, params, signal, batchRows)) {
        started = true;
        yield batch;
      }
    } catch (error) {
      if (started || signal?.aborted || !isConnectionFailure(error)) throw error;
      failed();
      yield* primary.stream<Row>(sql, params, signal, batchRows);
    }
  };
}
