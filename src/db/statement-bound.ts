/**
 * A PostgreSQL session that keeps a bounded number of named statements. Named statements are parsed and
 * planned once per session, but each one a session keeps holds its plans for the session's life: 80 to
 * 270 kB for the service's statements (measured with pg_backend_memory_contexts). Filters make the set of
 * statement texts open-ended, so a client sending ever new filter shapes could grow every session
 * without end.
 *
 * A session names its first MAX_NAMED_STATEMENTS texts. A new text beyond those runs unnamed (parsed
 * and planned for that execution only, as behind a pooler) and marks the session spent; the pool retires
 * a spent session when the request that holds it releases it (`spentError`), so the texts in use get
 * their names again on a fresh one. A session whose texts stay within the bound lives on: it is not
 * retired after a number of uses, which under load reconnected every session every few seconds.
 */
import pg from 'pg';

export const MAX_NAMED_STATEMENTS = 100;

export class StatementBoundClient extends pg.Client {
  private readonly named = new Set<string>();
  /** A text went unnamed for want of room: the session should be retired at its next release. */
  spent = false;

  // pg's overloads (text, config, submittable; promise or callback) all pass through unchanged but for
  // the name of a plain config's statement.
  override query(...args: unknown[]): never {
    const config = args[0] as { name?: unknown; submit?: unknown } | null;
    if (typeof config === 'object' && config !== null && typeof config.submit !== 'function' && typeof config.name === 'string' && !this.named.has(config.name)) {
      if (this.named.size < MAX_NAMED_STATEMENTS) this.named.add(config.name);
      else {
        this.spent = true;
        args[0] = { ...config, name: undefined };
      }
    }
    return (super.query as (...passed: unknown[]) => never)(...args);
  }
}

/** What to release a pool's client with: an error that retires it when it is spent. */
export function spentError(client: pg.PoolClient): Error | undefined {
  return (client as unknown as StatementBoundClient).spent ? new Error('the session holds all the named statements it may') : undefined;
}
