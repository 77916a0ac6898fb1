/**
 * What a start does to the database before serving: behind a pooler, check the role's statement
 * timeout (src/db/pooled-settings.ts); load the demo data set into an empty database
 * (LOAD_DEMO_DATA=false skips it), make sure a token signing key exists, and create the first
 * administrator key (src/auth/first-admin.ts).
 */
import { ensureFirstAdministrator } from './auth/first-admin.ts';
import { ensureSigningKey } from './auth/signing-keys.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { pooledSettingsProblems } from './db/pooled-settings.ts';
import type { Logger } from './logger.ts';

export interface StartupDependencies {
  config: Config;
  db: Database;
  logger: Logger;
}

export async function prepareDatabase({ config, db, logger }: StartupDependencies): Promise<void> {
  if (config.DATABASE_DIRECT_URL) {
    for (const problem of await pooledSettingsProblems(db.sql, config.DATABASE_STATEMENT_TIMEOUT_MS)) logger.warn(problem);
  }
  // Generated on the first start (or taken from SIGNING_KEY_JWK), before the first token is asked for.
  logger.info('checking the token signing key and the administrator key');
  await ensureSigningKey(db.sql, config);
  await ensureFirstAdministrator({ config, db, logger });
  if (config.LOAD_DEMO_DATA) {
    logger.info('checking for data (LOAD_DEMO_DATA=false skips this)');
    const { loadDemoDataIfEmpty } = await import('./data/demo.ts');
    const result = await loadDemoDataIfEmpty(db, logger);
    if (result.skipped === 'database has data') logger.info('the database holds data: the demo data set is not loaded');
  }
}
