/**
 * Imports a directory in the canonical format (docs/import-format.md): one JSONL file per resource,
 * loaded in dependency order, each file in its own transaction (one bad record and nothing of that file
 * is applied), then misspelt cities merged (resolve/locations.ts), derived columns recomputed and id
 * sequences moved past the imported ids.
 */
import type { Database } from '../../db/client.ts';
import { bumpSequences, recomputeDerived } from '../derived.ts';
import type { SqlTx } from '../sql/unnest.ts';
import { findImportFiles, type ImportFile } from './find-files.ts';
import { consolidateCities } from './resolve/locations.ts';
import { describeIssue, ImportError } from './import-error.ts';
import { fileSize, readLines, type SourceLine } from './read-lines.ts';
import { HANDLERS } from './resources.ts';
import { emptyCounts, type ImportCounts, type ImportOptions } from './types.ts';
import { createWriteContext, type Parsed } from './writers/context.ts';

export { ImportError } from './import-error.ts';
export type { ImportCounts, ImportOptions, ImportProgress, ImportResource } from './types.ts';
export { IMPORT_RESOURCES } from './types.ts';

const DEFAULT_BATCH_SIZE = 2000;

/**
 * Imports every resource file found in `dir`. Stops at the first file with a bad record (throwing an
 * ImportError naming file, line and field); files before it stay imported, and derived columns are
 * recomputed either way so the database is consistent.
 */
export async function importDirectory(
  db: Pick<Database, 'sql'>,
  dir: string,
  options: ImportOptions = {},
): Promise<ImportCounts> {
  const files = await findImportFiles(dir);
  const counts = emptyCounts();
  let failure: unknown;
  try {
    for (const file of files) {
      counts[file.resource] = await db.sql.transaction((tx) => importFile(tx, file, options));
    }
  } catch (error) {
    failure = error;
  }
  try {
    await db.sql.transaction(async (tx) => {
      await consolidateCities(tx);
      await recomputeDerived(tx);
      await bumpSequences(tx);
    });
  } catch (error) {
    // Inside an enclosing transaction a failed file aborts everything; report the file, not this.
    if (failure === undefined) throw error;
  }
  if (failure !== undefined) throw failure;
  // A bulk load leaves the planner without statistics (PGlite has no autovacuum): lookups by name,
  // domain or external id (matching, search) would scan instead of probing their indexes.
  if (counts.entities >= 1000) await db.sql.exec('ANALYZE entities, entity_external_ids');
  return counts;
}

async function importFile(tx: SqlTx, file: ImportFile, options: ImportOptions): Promise<number> {
  const handler = HANDLERS[file.resource];
  const context = createWriteContext(tx, file.name);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const totalBytes = await fileSize(file.path);
  const firstLineOfId = new Map<number, number>();
  let batch: Parsed<{ id: number }>[] = [];
  let records = 0;
  let bytesRead = 0;

  const flush = async () => {
    await writeBatch(file, batch, () => handler.write(context, batch));
    records += batch.length;
    batch = [];
    options.onProgress?.({ resource: file.resource, file: file.name, records, bytesRead, totalBytes, done: false });
  };

  for await (const source of readSource(file)) {
    const record = parseRecord(file, source, handler.schema);
    const seenOn = firstLineOfId.get(record.id);
    if (seenOn !== undefined) throw new ImportError(file.name, `duplicate id ${record.id} (also on line ${seenOn})`, source.line, 'id');
    firstLineOfId.set(record.id, source.line);
    batch.push({ line: source.line, record });
    bytesRead = source.bytesRead;
    if (batch.length >= batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  options.onProgress?.({ resource: file.resource, file: file.name, records, bytesRead: totalBytes, totalBytes, done: true });
  return records;
}

async function* readSource(file: ImportFile): AsyncGenerator<SourceLine> {
  try {
    yield* readLines(file.path);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(file.name, `cannot read the file: ${(error as Error).message}`);
  }
}

function parseRecord<T>(file: ImportFile, source: SourceLine, schema: { safeParse(input: unknown): ParseResult<T> }): T {
  let value: unknown;
  try {
    value = JSON.parse(source.text);
  } catch (error) {
    throw new ImportError(file.name, `invalid JSON (${(error as Error).message})`, source.line);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const { path, message } = issue ? describeIssue(issue, value) : { path: '', message: 'invalid record' };
  throw new ImportError(file.name, message, source.line, path);
}

type ParseResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: Parameters<typeof describeIssue>[0][] } };

/** Database errors of a batch (unique slugs or urls, ...) are reported with the batch's line range. */
async function writeBatch(file: ImportFile, batch: readonly Parsed<unknown>[], write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (error instanceof ImportError) throw error;
    const first = batch[0]?.line ?? 0;
    const last = batch.at(-1)?.line ?? first;
    const pg = error as { message?: string; detail?: string };
    const detail = [pg.message, pg.detail].filter(Boolean).join(': ');
    throw new ImportError(file.name, `rejected by the database: ${detail}`, first, undefined, last);
  }
}
