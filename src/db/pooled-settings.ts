/**
 * Behind a transaction-mode pooler the service sends no session settings (src/db/postgres.ts): the
 * statement timeout is then whatever the server gives the role. A start behind one checks it, so that
 * a deployment which forgot `ALTER ROLE ... SET statement_timeout` hears about it instead of running
 * statements without a bound.
 */
import type { SqlClient } from './client.ts';

/** What is wrong with the pooled connections' settings; empty when nothing is. */
export async function pooledSettingsProblems(sql: Pick<SqlClient, 'query'>, statementTimeoutMs: number): Promise<string[]> {
  const [row] = await sql.query<{ ms: string }>(
    "SELECT setting AS ms FROM pg_settings WHERE name = 'statement_timeout'",
  );
  const serverMs = Number(row?.ms ?? 0);
  if (serverMs > 0 && serverMs <= statementTimeoutMs) return [];
  return [
    `statement_timeout through the pooler is ${serverMs === 0 ? 'unlimited' : `${serverMs} ms`}, above DATABASE_STATEMENT_TIMEOUT_MS (${statementTimeoutMs} ms): ` +
      `behind a transaction-mode pooler the role sets it (ALTER ROLE <role> SET statement_timeout = '${statementTimeoutMs}ms'; docs/operations.md, "Behind PgBouncer")`,
  ];
}
