import type { SqlTx } from '../../sql/unnest.ts';
import { ImportError } from '../import-error.ts';
import { LocationResolver } from '../resolve/locations.ts';
import { TaxonomyResolver } from '../resolve/taxonomy.ts';

/** One validated record and the line it came from. */
export interface Parsed<T> {
  line: number;
  record: T;
}

/** What a writer needs while one file is being imported (all inside that file's transaction). */
export interface WriteContext {
  tx: SqlTx;
  file: string;
  locations: LocationResolver;
  tags: TaxonomyResolver;
  backgrounds: TaxonomyResolver;
}

export function createWriteContext(tx: SqlTx, file: string): WriteContext {
  return {
    tx,
    file,
    locations: new LocationResolver(tx),
    tags: TaxonomyResolver.tags(tx),
    backgrounds: TaxonomyResolver.backgrounds(tx),
  };
}

export interface Reference {
  id: number;
  line: number;
  /** Field path inside the record, e.g. `investors[1].id`. */
  path: string;
}

const TABLE_NOUN = { entities: 'entity', funding_rounds: 'transaction' } as const;

/**
 * Fails on the first reference (in file order) to a row that does not exist, naming its line and field,
 * before any row of the batch is written: clearer than a foreign-key error for the whole batch.
 */
export async function assertReferencesExist(
  context: WriteContext,
  table: keyof typeof TABLE_NOUN,
  references: readonly Reference[],
): Promise<void> {
  if (references.length === 0) return;
  const ids = [...new Set(references.map((reference) => reference.id))];
  const rows = await context.tx.query<{ id: number }>(`SELECT id FROM ${table} WHERE id = ANY($1::int[])`, [ids]);
  const found = new Set(rows.map((row) => row.id));
  const missing = references.filter((reference) => !found.has(reference.id)).sort((a, b) => a.line - b.line);
  const first = missing[0];
  if (first) {
    throw new ImportError(context.file, `no ${TABLE_NOUN[table]} with id ${first.id}`, first.line, first.path);
  }
}
