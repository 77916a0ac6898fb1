/**
 * `npm run cli -- <command> [args]`: the operator's tools. Each command lives in its own file; this
 * file only dispatches, opens the database on demand and closes it afterwards.
 */
import { loadConfig, ConfigError } from '../config.ts';
import { databaseOptions, openDatabase, type Database } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { alignChangeTriggers } from '../startup.ts';
import { createLogger } from '../logger.ts';
import { CliUsageError, type CliContext, type Command } from './command.ts';
import { importCommand } from './import.ts';
import { keyCreateCommand } from './key-create.ts';
import { keysRotateSigningCommand } from './keys-rotate-signing.ts';
import { migrateCommand } from './migrate.ts';
import { printSchemaCommand } from './print-schema.ts';
import { seedCommand } from './seed.ts';
import { tokenUserCommand } from './token-user.ts';

const COMMANDS: readonly Command[] = [
  migrateCommand,
  importCommand,
  seedCommand,
  keyCreateCommand,
  tokenUserCommand,
  keysRotateSigningCommand,
  printSchemaCommand,
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.usage.length));
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    ...COMMANDS.map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`),
    '',
    'Run `npm run cli -- <command> --help` for one command.',
  ].join('\n');
}

const HELP_FLAGS = new Set(['--help', '-h', 'help']);

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  // Asking for help is a success: printed on stdout, exit 0, before any configuration is read.
  if (name === undefined || HELP_FLAGS.has(name)) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    process.stderr.write(`Unknown command: ${name}\n\n${usage()}\n`);
    return 64;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`Usage: npm run cli -- ${command.usage}\n\n${command.summary}\n`);
    return 0;
  }
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL });
  let db: Database | undefined;
  const context: CliContext = {
    config,
    logger,
    print: (line) => process.stdout.write(`${line}\n`),
    database: async (options = {}) => {
      db ??= await openDatabase({ ...databaseOptions(config), poolSize: 4 });
      if (options.migrate !== false) {
        await migrate(db.sessionSql);
        await alignChangeTriggers(db, logger);
      }
      return db;
    },
  };
  try {
    return await command.run(args, context);
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`${error.message}\nUsage: npm run cli -- ${command.usage}\n`);
      return 64;
    }
    throw error;
  } finally {
    await db?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  },
);
