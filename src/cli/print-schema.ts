import { writeFile } from 'node:fs/promises';
import { packagePath } from '../package-root.ts';
import { printSchemaSdl } from '../api-schema.ts';
import type { Command } from './command.ts';

export const SCHEMA_FILE = packagePath('schema.graphql');

export const printSchemaCommand: Command = {
  name: 'print-schema',
  usage: 'print-schema [--stdout]',
  summary: 'Write the GraphQL SDL to schema.graphql (a test fails when the file drifts)',
  run: async (args, context) => {
    if (args.includes('--stdout')) context.print(printSchemaSdl());
    else {
      await writeFile(SCHEMA_FILE, printSchemaSdl());
      context.print(`Wrote ${SCHEMA_FILE}`);
    }
    return 0;
  },
};
