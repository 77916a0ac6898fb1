/**
 * The embedded database in a thread of its own (src/db/pglite-worker.mjs), so that every statement is
 * bounded by DATABASE_STATEMENT_TIMEOUT_MS as on PostgreSQL: PGlite runs a statement as one synchronous
 * WASM call that neither `statement_timeout` nor anything else interrupts (docs/operations.md, "The
 * statement timeout on the embedded database"). This side keeps each message's deadline; past it the
 * thread is terminated, the statement answered with PostgreSQL's own timeout error (57014, a 503 as
 * on PostgreSQL) and the database reopened from its folder, which keeps every committed write (crash
 * recovery replays the WAL). Meanwhile this thread's event loop stays free: health checks, signals
 * and requests that need no database are served while a statement runs.
 *
 * The client is PGlite's own: its base class (shared by PGlite and PGliteWorker, not exported, reached
 * through PGliteWorker's prototype) turns query/exec/transaction into wire-protocol messages and parses
 * the answers; this class only carries the messages to the thread (why not PGliteWorker: docs/operations.md).
 */
import type { Worker } from 'node:worker_threads';
import { messages, Mutex, protocol, type PGliteInterface, type Transaction } from '@electric-sql/pglite';
import { cannotOpen, channelName, closedError, endsLostSession, MessageBatch, SYNC, threadLost, timedOut, type Pending } from './pglite-messages.ts';
import { PGliteWorker } from '@electric-sql/pglite/worker';
import { startThread } from '../thread.ts';

type BackendMessage = Parameters<Parameters<InstanceType<typeof protocol.Parser>['parse']>[1]>[0];

/** What this class uses of PGlite's base class (the rest of PGliteInterface it implements itself). */
interface BasePGlite extends Pick<PGliteInterface, 'query' | 'sql' | 'exec' | 'transaction' | 'describeQuery' | 'runExclusive' | 'serializers' | 'parsers'> {
  _initArrayTypes(): Promise<void>;
}
const BasePGlite = Object.getPrototypeOf(PGliteWorker) as abstract new () => BasePGlite;

export interface RemotePGliteOptions {
  /** The data folder (an in-memory database is given a temporary one: src/db/pglite.ts). */
  dataDir: string;
  /** Loaded into an empty folder at the first start. */
  startFrom?: Blob | undefined;
  /** Past this, a message's statement is stopped; undefined: never. */
  statementTimeoutMs?: number | undefined;
}

export class RemotePGlite extends BasePGlite {
  readonly debug = 0;
  readonly #options: RemotePGliteOptions;
  #worker: Worker | undefined;
  /** The current thread's start; every message waits for it (a restart replaces it). */
  #started: Promise<void> = Promise.resolve();
  #startFailed = false;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #closed = false;
  readonly #queryMutex = new Mutex();
  /** How many `withoutDeadline` calls are running: their statements have no deadline. */
  #unbounded = 0;
  readonly #transactionMutex = new Mutex();
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  readonly #batch = new MessageBatch();
  /** Which thread (counted from 0) serves; which one the running unit of work began on; why each ended. */
  #epoch = 0;
  #unitEpoch = 0;
  readonly #epochEnded = new Map<number, Error>();

  private constructor(options: RemotePGliteOptions) {
    super();
    this.#options = options;
  }

  static async open(options: RemotePGliteOptions): Promise<RemotePGlite> {
    const db = new RemotePGlite(options);
    db.#started = db.#start(options.startFrom);
    await db.#started;
    await db._initArrayTypes();
    return db;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #start(startFrom?: Blob): Promise<void> {
    const seed = startFrom ? await startFrom.arrayBuffer() : undefined;
    const worker = startThread(new URL('./pglite-worker.mjs', import.meta.url), {
      workerData: { dataDir: this.#options.dataDir, startFrom: seed },
      transferList: seed ? [seed] : [],
    });
    this.#worker = worker;
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number) => reject(threadLost(`it exited with ${code} while opening the database`));
      worker.once('exit', onExit);
      worker.once('message', (message: { ready?: true; failed?: string }) => {
        worker.off('exit', onExit);
        if (message.ready) resolve();
        else reject(cannotOpen(message.failed ?? 'unknown'));
      });
    });
    worker.on('message', ({ id, data, error }: { id: number; data?: Uint8Array; error?: string }) => {
      const pending = this.#pending.get(id);
      if (!pending) return;
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      if (error === undefined) pending.resolve(data);
      else pending.reject(threadLost(error));
    });
    worker.once('exit', (code) => {
      if (this.#worker === worker && !this.#closed) this.#restart(threadLost(`it exited with ${code}`));
    });
    worker.on('error', (error) => {
      if (this.#worker === worker && !this.#closed) this.#restart(threadLost(error.message));
    });
    for (const channel of this.#listeners.keys()) {
      await this.#send(worker, 'protocol', protocol.serialize.query(`LISTEN "${channel.replaceAll('"', '""')}"`));
    }
  }

  /** Stops the thread: what it was running fails with `reason`; resolves once the thread has ended. */
  #stop(reason: Error): Promise<unknown> {
    this.#epochEnded.set(this.#epoch, reason);
    this.#epoch += 1;
    this.#batch.clear();
    const old = this.#worker;
    this.#worker = undefined;
    old?.removeAllListeners();
    const ended = old?.terminate() ?? Promise.resolve();
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(reason);
    }
    this.#pending.clear();
    return ended;
  }

  /** Replaces the thread; the next messages wait for the new one. */
  #restart(reason: Error): void {
    // The new thread opens the folder only once the old one has ended: never two writers on it.
    const ended = this.#stop(reason);
    this.#startFailed = false;
    this.#started = ended.then(() => this.#start()).catch((error: Error) => {
      this.#startFailed = true;
      throw error;
    });
    this.#started.catch(() => undefined); // the messages waiting for it get the error
  }

  async #request(kind: 'protocol' | 'dump' | 'close', message?: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.#startFailed && !this.#closed) this.#restart(threadLost('the previous start failed'));
    await this.#started;
    if (this.#closed || !this.#worker) throw closedError();
    return this.#send(this.#worker, kind, message);
  }

  #send(worker: Worker, kind: 'protocol' | 'dump' | 'close', message?: Uint8Array): Promise<Uint8Array | undefined> {
    const id = (this.#nextId += 1);
    const timeoutMs = kind === 'protocol' && this.#unbounded === 0 ? this.#options.statementTimeoutMs : undefined;
    return new Promise((resolve, reject) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.#restart(timedOut()), timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, kind, message });
    });
  }

  /** Runs `work` with no deadline on the statements sent meanwhile (start-up work only: nothing else runs then). */
  async withoutDeadline<T>(work: () => Promise<T>): Promise<T> {
    this.#unbounded += 1;
    try {
      return await work();
    } finally {
      this.#unbounded -= 1;
    }
  }

  async execProtocolRaw(message: Uint8Array): Promise<Uint8Array> {
    const lost = this.#unitLost();
    if (lost) {
      this.#batch.clear();
      if (!endsLostSession(message)) throw lost;
      // Past its ROLLBACK the unit is outside any transaction, as a new session is: it goes on there
      // (Prisma's adapter sends COMMIT after its own ROLLBACK, which must succeed as on PostgreSQL).
      if (message[0] !== SYNC) this.#unitEpoch = this.#epoch;
      return new Uint8Array();
    }
    const batch = this.#batch.add(message);
    if (!batch) return new Uint8Array();
    // A ROLLBACK whose thread stopped while it ran (its own deadline, a lost thread) did what it asked:
    // the session and its transaction are gone. Failing it would replace the error that led to it, and
    // Prisma's adapter does not await its ROLLBACK: the failure would be an unhandled rejection.
    return (await this.#request('protocol', batch).catch((error: unknown) => {
      if (!(endsLostSession(message) && this.#unitLost())) throw error;
      this.#unitEpoch = this.#epoch;
      return undefined;
    })) ?? new Uint8Array();
  }

  /**
   * A unit of work (a query, an exec or a whole transaction: the base class runs each under its
   * transaction lock) whose thread was replaced: its session is gone. Its Sync and ROLLBACK are
   * answered here, so a failed statement's error arrives at once, not after the reopening, and a
   * rollback cannot fail; anything else fails with what ended the thread, as PostgreSQL refuses
   * statements in an aborted transaction.
   */
  #unitLost(): Error | undefined {
    return this.#unitEpoch === this.#epoch ? undefined : this.#epochEnded.get(this.#unitEpoch);
  }

  /** As PGlite's: the first error is thrown once the answer is read, notifications reach their listeners. */
  async execProtocol(
    message: Uint8Array,
    { throwOnError = true, onNotice }: { throwOnError?: boolean; onNotice?: (notice: messages.NoticeMessage) => void } = {},
  ): Promise<{ messages: BackendMessage[]; data: Uint8Array }> {
    const data = await this.execProtocolRaw(message);
    const results: BackendMessage[] = [];
    let failure: messages.DatabaseError | undefined;
    new protocol.Parser().parse(data, (msg) => {
      if (failure) return;
      if (msg instanceof messages.DatabaseError) {
        if (throwOnError) failure = msg;
      } else if (msg instanceof messages.NoticeMessage) {
        onNotice?.(msg);
      } else if (msg instanceof messages.NotificationResponseMessage) {
        for (const listener of this.#listeners.get(msg.channel) ?? []) queueMicrotask(() => listener(msg.payload));
      }
      results.push(msg);
    });
    if (failure) throw failure;
    return { messages: results, data };
  }

  async execProtocolStream(message: Uint8Array, options?: Parameters<RemotePGlite['execProtocol']>[1]): Promise<BackendMessage[]> {
    return (await this.execProtocol(message, options)).messages;
  }

  async execProtocolRawStream(message: Uint8Array, { onRawData }: { onRawData: (data: Uint8Array) => void }): Promise<void> {
    onRawData(await this.execProtocolRaw(message));
  }

  // The folder is written through by PGlite's Node file system: nothing waits to be synced. COPY's
  // blobs are not carried to the thread.
  async syncToFs(): Promise<void> {}
  async _handleBlob(blob?: Blob): Promise<void> {
    if (blob) throw new Error("COPY with a blob is not carried to the embedded database's thread");
  }
  async _getWrittenBlob(): Promise<undefined> {}
  async _cleanupBlob(): Promise<void> {}

  async _checkReady(): Promise<void> {
    if (this.#closed) throw closedError();
  }

  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queryMutex.runExclusive(fn);
  }

  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#transactionMutex.runExclusive(() => {
      this.#unitEpoch = this.#epoch;
      this.#epochEnded.clear();
      return fn();
    });
  }

  /** LISTEN; the channels are listened to again on each new thread. */
  async listen(channel: string, callback: (payload: string) => void, tx?: Transaction): Promise<(tx?: Transaction) => Promise<void>> {
    const name = channelName(channel);
    const listeners = this.#listeners.get(name) ?? new Set();
    this.#listeners.set(name, listeners.add(callback));
    try {
      await (tx ?? this).exec(`LISTEN ${channel}`);
    } catch (error) {
      listeners.delete(callback);
      if (!listeners.size) this.#listeners.delete(name);
      throw error;
    }
    return (tx2?: Transaction) => this.#unlisten(name, callback, tx2);
  }

  unlisten(channel: string, callback?: (payload: string) => void, tx?: Transaction): Promise<void> {
    return this.#unlisten(channelName(channel), callback, tx);
  }

  async #unlisten(name: string, callback?: (payload: string) => void, tx?: Transaction): Promise<void> {
    const listeners = this.#listeners.get(name);
    if (callback) listeners?.delete(callback);
    if (callback && listeners?.size) return;
    this.#listeners.delete(name);
    await (tx ?? this).exec(`UNLISTEN "${name.replaceAll('"', '""')}"`);
  }

  async dumpDataDir(): Promise<Blob> {
    return new Blob([((await this.#request('dump')) ?? new Uint8Array()) as Uint8Array<ArrayBuffer>]);
  }

  /**
   * Closes the database cleanly when it is idle; a statement still running (a stop during a long
   * aggregate) is not waited for: the thread is terminated, and the next start recovers the folder.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    const idle = this.#pending.size === 0 && !this.#startFailed;
    const worker = this.#worker;
    if (idle && worker) await this.#send(worker, 'close').catch(() => undefined);
    this.#closed = true;
    await this.#stop(closedError());
  }
}
