/**
 * What a start does to the database before serving: load the demo data set into an empty database
 * (LOAD_DEMO_DATA=false skips it). The first administrator key joins this step with issue 4.
 */
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Logger } from './logger.ts';

export interface StartupDependencies {
  config: Config;
  db: Database;
  logger: Logger;
}

export async function prepareDatabase({ config, db, logger }: StartupDependencies): Promise<void> {
  if (config.LOAD_DEMO_DATA) {
    const { loadDemoDataIfEmpty } = await import('./data/demo.ts');
    await loadDemoDataIfEmpty(db, logger);
  }
}
