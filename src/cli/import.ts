import { resolve } from 'node:path';
import { importDirectory, ImportError, IMPORT_RESOURCES } from '../data/import/index.ts';
import { createProgressReporter } from '../data/progress-reporter.ts';
import { CliUsageError, type Command } from './command.ts';

/** `import <dir>`: loads a directory in the canonical JSONL format (docs/import-format.md). */
export const importCommand: Command = {
  name: 'import',
  usage: 'import <dir>',
  summary: 'Import entities, investors, founders, transactions, valuations and news from JSONL files',
  run: async (args, context) => {
    const [dir, ...rest] = args;
    if (!dir || rest.length > 0 || dir.startsWith('-')) throw new CliUsageError('Expected one directory');
    const db = await context.database();
    const progress = createProgressReporter();
    const started = performance.now();
    try {
      const counts = await importDirectory(db, resolve(dir), {
        onProgress: (p) =>
          p.done
            ? progress.finish(p.file, `${p.records} records`)
            : progress.update(p.file, p.bytesRead, p.totalBytes, `${p.records} records`),
      });
      progress.stop();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      context.print(`Imported ${IMPORT_RESOURCES.map((r) => `${counts[r]} ${r}`).join(', ')} in ${seconds} s`);
      return 0;
    } catch (error) {
      progress.stop();
      if (!(error instanceof ImportError)) throw error;
      const inFile = /\.jsonl(\.gz)?\b/.test(error.file);
      const note = inFile ? '\nNothing of that file was applied; files before it were imported.' : '';
      process.stderr.write(`Import failed: ${error.message}${note}\n`);
      return 1;
    }
  },
};
