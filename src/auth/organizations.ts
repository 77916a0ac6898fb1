/**
 * Organisations exist once something names them: a new API key, or a verified token's `org_id` (a user
 * of the identity provider may arrive before anyone created their organisation). Rows are never
 * deleted, so remembering which ids exist is safe.
 */
import type { SqlClient } from '../db/client.ts';

export async function ensureOrganization(sql: Pick<SqlClient, 'query'>, orgId: string): Promise<void> {
  await sql.query('INSERT INTO organizations (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING', [orgId]);
}

/** ensureOrganization, once per id and process; a promise only when the database is asked. */
export function createOrganizationRegistry(sql: Pick<SqlClient, 'query'>): (orgId: string) => Promise<void> | undefined {
  const known = new Set<string>();
  const insert = async (orgId: string) => {
    await ensureOrganization(sql, orgId);
    // Bounded: a process that has seen this many organisations just asks again (an idempotent insert).
    if (known.size < 100_000) known.add(orgId);
  };
  return (orgId) => (known.has(orgId) ? undefined : insert(orgId));
}
