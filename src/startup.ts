/**
 * What a start does to the database before serving: behind a pooler, check the role's statement
 * timeout (src/db/pooled-settings.ts); bring the change triggers' column lists in line with the
 * records' fields (src/changes/trigger-columns.ts); load the demo data set into an empty database
 * (LOAD_DEMO_DATA=false skips it), make sure a token signing key exists, create the first
 * administrator key (src/auth/first-admin.ts), and derive matching's statistics again when the
 * entities have changed much since they were counted (src/match/statistics.ts).
 */
import { ensureFirstAdministrator } from './auth/first-admin.ts';
import { ensureSigningKey } from './auth/signing-keys.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { pooledSettingsProblems } from './db/pooled-settings.ts';
import type { Logger } from './logger.ts';
import { refreshStaleMatchStatistics } from './match/statistics.ts';

export interface StartupDependencies {
  config: Config;
  db: Database;
  logger: Logger;
}

/**
 * After the migrations: a field added to a record is reported in the change feed's `changed_fields`
 * (and an investor's field living on its entity makes entity updates investor changes) because the
 * triggers' column lists are derived from the records, here, under the migrations' lock.
 */
export async function alignChangeTriggers(db: Database, logger: Logger): Promise<void> {
  // Loaded when needed, so the first log lines of a start appear before the schema's module graph loads.
  const [{ changeTriggerArguments, syncChangeTriggers }, { getSchema }] = await Promise.all([
    import('./changes/trigger-columns.ts'),
    import('./api-schema.ts'),
  ]);
  const rewritten = await syncChangeTriggers(db.sessionSql, changeTriggerArguments(getSchema()));
  if (rewritten.length) logger.info({ triggers: rewritten }, "the change triggers now follow the records' fields");
}

export async function prepareDatabase({ config, db, logger }: StartupDependencies): Promise<void> {
  if (config.DATABASE_DIRECT_URL) {
    for (const problem of await pooledSettingsProblems(db.sql, config.DATABASE_STATEMENT_TIMEOUT_MS)) logger.warn(problem);
  }
  await alignChangeTriggers(db, logger);
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
  await refreshStaleMatchStatistics(db.sql, logger);
}
