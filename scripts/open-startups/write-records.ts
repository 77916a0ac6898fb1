/**
 * Writes the data set as the canonical import format: gzip-compressed JSONL, one record per line, empty
 * fields left out (the importer's defaults fill them). Gzip output has no timestamp, so re-running the
 * converter on the same sources gives byte-identical files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Dataset } from './dataset.ts';

function compact<T extends object>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== '' && value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0)),
  ) as Partial<T>;
}

async function writeJsonlGz(dir: string, resource: string, records: readonly object[]): Promise<number> {
  const text = records.map((record) => JSON.stringify(compact(record))).join('\n');
  const data = gzipSync(records.length ? `${text}\n` : '', { level: 9 });
  await writeFile(join(dir, `${resource}.jsonl.gz`), data);
  return data.length;
}

export interface WrittenFile {
  resource: string;
  records: number;
  bytes: number;
}

export async function writeDataset(dataset: Dataset, dir: string): Promise<WrittenFile[]> {
  await mkdir(dir, { recursive: true });
  const investors = dataset.entities.filter((entity) => entity.is_investor).map((entity) => ({ id: entity.id }));
  const outputs: [string, readonly object[]][] = [
    ['entities', dataset.entities],
    ['investors', investors],
    ['founders', dataset.founders],
    ['transactions', dataset.transactions],
    ['valuations', dataset.valuations],
    ['news', dataset.news],
  ];
  const written: WrittenFile[] = [];
  for (const [resource, records] of outputs) {
    written.push({ resource, records: records.length, bytes: await writeJsonlGz(dir, resource, records) });
  }
  return written;
}
