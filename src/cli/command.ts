/** The shape of one command of `npm run cli -- <command>`, and the helpers commands share. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
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

/**
 * `--name value` options (node:util parseArgs, strict, no positionals); a malformed command line is a
 * CliUsageError, which the runner prints with the command's usage.
 */
export function parseOptions<const Options extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: Options) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}

/** Runs `parse`, turning what it throws into a CliUsageError (e.g. an unknown permission name). */
export function asUsageError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}
