/**
 * Converts the open startup data into the demo data set:
 *   npx tsx scripts/convert-open-startups.ts <sources-dir> <out-dir>
 * e.g. `npx tsx scripts/convert-open-startups.ts prisma/demo/sources prisma/demo` (docs/open-data.md lists the sources).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { convertOpenStartups } from './open-startups/index.ts';

async function main(args: string[]): Promise<number> {
  const [source, out] = args;
  if (!source || !out) {
    process.stderr.write('usage: npx tsx scripts/convert-open-startups.ts <sources-dir> <out-dir>\n');
    return 2;
  }
  if (!existsSync(join(source, 'crunchbase-2013'))) {
    process.stderr.write(`no crunchbase-2013/ folder under ${source}\n`);
    return 1;
  }
  const started = performance.now();
  const report = await convertOpenStartups(resolve(source), resolve(out));
  for (const file of report.files) {
    process.stdout.write(`${file.resource}.jsonl.gz: ${file.records} records, ${(file.bytes / 1024).toFixed(0)} KiB\n`);
  }
  for (const [note, value] of Object.entries(report.notes)) process.stdout.write(`${note}: ${value}\n`);
  process.stdout.write(`done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
