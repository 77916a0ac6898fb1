/**
 * The per-request questions about an API key: is it still active, and when was it last used.
 *
 * Answers are kept in memory, so a request costs no database round trip for them, and dropped the
 * moment the database says a key changed: a trigger on api_keys (migration
 * 20261123040001_api_key_notify) sends NOTIFY with the client id when a key is revoked or deleted,
 * and every instance LISTENs. While the listening connection is down (or before it is up) nothing is
 * served from memory: each request asks the database, as it did before the cache, and on
 * reconnection the memory starts empty, since notifications sent meanwhile were missed. Either way a
 * revocation is seen by the next request on every instance.
 */
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { MaybePromise } from '../maybe-promise.ts';

export interface KeyCredential {
  id: number;
  orgId: string;
  permissions: string[];
  secretHash: string;
  revoked: boolean;
}

interface CredentialRow {
  id: number;
  org_id: string;
  permissions: string[] | null;
  secret_hash: string;
  revoked_at: Date | string | null;
}

export async function findCredential(sql: Pick<SqlClient, 'query'>, clientId: string): Promise<KeyCredential | undefined> {
  const [row] = await sql.query<CredentialRow>(
    'SELECT id, org_id, permissions, secret_hash, revoked_at FROM api_keys WHERE client_id = $1',
    [clientId],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    orgId: row.org_id,
    permissions: row.permissions ?? [],
    secretHash: row.secret_hash,
    revoked: row.revoked_at !== null,
  };
}

export type KeyState = 'active' | 'revoked' | 'unknown';

const LAST_USED_INTERVAL_MS = 60_000;

export interface KeyStatus {
  /**
   * Whether the key behind a token may still be used; records the use (at most once a minute). A
   * promise only when the database must be asked: the answer from memory costs no microtask.
   */
  check(clientId: string): MaybePromise<KeyState>;
  /** Records a use now (the token endpoint); at most once a minute per key. */
  touch(clientId: string): void;
}

/** The channel the api_keys trigger notifies on; the payload is the key's client id. */
export const KEY_CHANGES_CHANNEL = 'vda_api_key_changes';

/** More keys than this in memory: start over (a bound, not an expected size). */
const MAX_REMEMBERED_KEYS = 100_000;

/** How long a revoking request waits, at most, for its own instance to hear the notification. */
const HEAR_TIMEOUT_MS = 1_000;

/**
 * Then a little longer: the other instances' listeners are signalled at the same commit, but on a
 * loaded machine their delivery can trail ours by some milliseconds. Revocations are rare; a tenth of
 * a second on the revoking request buys them that time.
 */
const SETTLE_MS = 100;

interface LocalService {
  /** Forgets the key now and resolves once the notification of its change was heard (or soon). */
  revokedHere(clientId: string): Promise<void>;
}

const servicesInThisProcess = new Set<LocalService>();

/**
 * Called after this process revoked or deleted a key: every key status in the process forgets it at
 * once (so this instance never answers from memory after its own revocation), and the caller waits
 * until this instance's listener has heard the change, and SETTLE_MS more. PostgreSQL signals every
 * listener when the change commits, so by the time the revoking request is answered the other
 * instances have normally been told too. What remains is a window on the other instances as long as
 * their notification's delivery takes beyond that (a request racing a revocation made elsewhere).
 */
export async function keyRevokedHere(clientId: string): Promise<void> {
  await Promise.all([...servicesInThisProcess].map((service) => service.revokedHere(clientId)));
}

export interface KeyStatusService extends KeyStatus {
  /** Whether answers may come from memory (notifications are being heard). */
  isListening(): boolean;
  /** Stops listening. */
  close(): Promise<void>;
}

export function createKeyStatus(sql: SqlClient, logger: Logger): KeyStatusService {
  // Conditional, so several instances (or concurrent requests) write it once a minute between them.
  const touch = (clientId: string): void => {
    if (lastTouched.size >= MAX_REMEMBERED_KEYS) lastTouched.clear();
    lastTouched.set(clientId, Date.now());
    sql
      .query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE client_id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [clientId],
      )
      .catch((error: unknown) => logger.warn({ err: error, clientId }, 'could not record last_used_at'));
  };

  const remembered = new Map<string, 'active' | 'revoked'>();
  const lastTouched = new Map<string, number>();
  let listening = false;
  // Bumped by every notification and change of listening state: an answer read from the database
  // while it moved may predate a revocation, so it is used but not remembered.
  let generation = 0;
  const forgetAll = () => {
    generation += 1;
    remembered.clear();
  };
  // Client ids whose notification arrived lately, and revoking requests waiting to hear one.
  const heardAt = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  const subscription = sql.listen?.(KEY_CHANGES_CHANNEL, {
    onNotification: (clientId) => {
      generation += 1;
      remembered.delete(clientId);
      if (heardAt.size > 1_000) heardAt.clear();
      heardAt.set(clientId, Date.now());
      for (const wake of waiting.get(clientId) ?? []) wake();
      waiting.delete(clientId);
    },
    onReady: () => {
      forgetAll();
      listening = true;
    },
    onLost: (error) => {
      listening = false;
      forgetAll();
      logger.warn({ err: error }, 'key change notifications lost; checking keys in the database until they are back');
    },
  });

  const touchIfDue = (clientId: string, lastUsed: number): void => {
    if (Date.now() - lastUsed >= LAST_USED_INTERVAL_MS) touch(clientId);
  };

  const readState = async (clientId: string): Promise<KeyState> => {
    const before = generation;
    const [row] = await sql.query<{ revoked_at: Date | string | null; last_used_at: Date | string | null }>(
      'SELECT revoked_at, last_used_at FROM api_keys WHERE client_id = $1',
      [clientId],
    );
    if (!row) return 'unknown';
    const state = row.revoked_at !== null ? 'revoked' : 'active';
    if (listening && generation === before) {
      if (remembered.size >= MAX_REMEMBERED_KEYS) remembered.clear();
      remembered.set(clientId, state);
    }
    if (state === 'active') {
      const lastUsed = row.last_used_at === null ? 0 : new Date(row.last_used_at).getTime();
      lastTouched.set(clientId, lastUsed);
      touchIfDue(clientId, lastUsed);
    }
    return state;
  };

  const local: LocalService = {
    revokedHere: async (clientId) => {
      generation += 1;
      remembered.delete(clientId);
      if (!listening) return;
      if (Date.now() - (heardAt.get(clientId) ?? 0) >= HEAR_TIMEOUT_MS) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, HEAR_TIMEOUT_MS);
          waiting.set(clientId, [...(waiting.get(clientId) ?? []), () => (clearTimeout(timer), resolve())]);
        });
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    },
  };
  servicesInThisProcess.add(local);

  return {
    touch,
    check: (clientId) => {
      const known = listening ? remembered.get(clientId) : undefined;
      if (!known) return readState(clientId);
      if (known === 'active') touchIfDue(clientId, lastTouched.get(clientId) ?? 0);
      return known;
    },
    isListening: () => listening,
    close: async () => {
      listening = false;
      servicesInThisProcess.delete(local);
      await subscription?.close();
    },
  };
}
