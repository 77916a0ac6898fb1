/** The shape of one command of `npm run cli -- <command>`. */
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';

export interface CliContext {
  config: Config;
  logger: Logger;
  /**
   * Opens the configured database, migrated unless `{migrate: false}`; the runner closes it after
   * the command. Commands that need no database never open one.
   */
  database(options?: { migrate?: boolean }): Promise<Database>;
  /** Human-facing output (stdout); logs go to the logger. */
  print(line: string): void;
}

export interface Command {
  name: string;
  usage: string;
  summary: string;
  /** Resolves to the process exit code. Throw CliUsageError for bad arguments. */
  run(args: string[], context: CliContext): Promise<number>;
}

export class CliUsageError extends Error {
  override name = 'CliUsageError';
}
