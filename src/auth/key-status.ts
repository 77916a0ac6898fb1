/**
 * The per-request questions about an API key, in plain SQL on the unique client_id index: is it still
 * active, and when was it last used. No cache: a revocation is seen by the next request on every
 * instance because every request asks the database (one indexed lookup; see docs/auth.md for the cost).
 */
import type { SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';

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
  /** Whether the key behind a token may still be used; records the use (at most once a minute). */
  check(clientId: string): Promise<KeyState>;
  /** Records a use now (the token endpoint); at most once a minute per key. */
  touch(clientId: string): void;
}

export function createKeyStatus(sql: SqlClient, logger: Logger): KeyStatus {
  // Conditional, so several instances (or concurrent requests) write it once a minute between them.
  const touch = (clientId: string): void => {
    sql
      .query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE client_id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [clientId],
      )
      .catch((error: unknown) => logger.warn({ err: error, clientId }, 'could not record last_used_at'));
  };

  return {
    touch,
    check: async (clientId) => {
      const [row] = await sql.query<{ revoked_at: Date | string | null; last_used_at: Date | string | null }>(
        'SELECT revoked_at, last_used_at FROM api_keys WHERE client_id = $1',
        [clientId],
      );
      if (!row) return 'unknown';
      if (row.revoked_at !== null) return 'revoked';
      const lastUsed = row.last_used_at === null ? 0 : new Date(row.last_used_at).getTime();
      if (Date.now() - lastUsed >= LAST_USED_INTERVAL_MS) touch(clientId);
      return 'active';
    },
  };
}
