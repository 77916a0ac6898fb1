/**
 * Deterministic synthetic data of realistic shape for every reference resource: entities (companies,
 * investors, universities), tags, locations, founders with companies, education and backgrounds,
 * rounds with investors and leads, valuations (some of $1B and more), news with entities, and about 1%
 * soft-deleted entities. The same `entities` and `seed` always give the same rows.
 *
 * Speed: rows are generated in batches and written with one `INSERT ... SELECT FROM unnest(...)` per
 * table and batch; the next batch is generated while the database writes the previous ones.
 */
import type { Database } from '../../db/client.ts';
import { bumpSequences, recomputeDerived } from '../derived.ts';
import type { SqlTx } from '../sql/unnest.ts';
import { writeSeedBatch, type SeedBatch } from './batch.ts';
import { generateCompanyBatch, generateReferenceBatch } from './generate-batch.ts';
import { Prng } from './prng.ts';
import { clearReferenceData, countReferenceRows, writeTaxonomy } from './reference-tables.ts';
import { newCounters, Universe } from './universe.ts';

export { SeedRefusedError } from './reference-tables.ts';

export interface SeedOptions {
  entities: number;
  /** PRNG seed; the default gives the documented data set. */
  seed?: number;
  /** Delete the existing reference data first (API keys, teams, ecosystems are kept). */
  replace?: boolean;
  /** Entity ids per batch (part of what determines the data, like `entities` and `seed`). */
  batchSize?: number;
  onProgress?: (progress: SeedProgress) => void;
}

export interface SeedProgress {
  phase: 'investors and universities' | 'companies' | 'derived columns';
  done: number;
  total: number;
}

export type SeedCounts = Awaited<ReturnType<typeof countReferenceRows>>;

export const DEFAULT_SEED = 20_261_121;
const DEFAULT_BATCH_SIZE = 5_000;
const WRITERS = 2;

export async function seedDatabase(db: Pick<Database, 'sql' | 'kind'>, options: SeedOptions): Promise<SeedCounts> {
  if (!Number.isInteger(options.entities) || options.entities < 1) throw new RangeError('entities must be a positive integer');
  const seed = options.seed ?? DEFAULT_SEED;
  const universe = new Universe(options.entities, seed);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const report = (phase: SeedProgress['phase'], done: number) => options.onProgress?.({ phase, done, total: options.entities });

  await db.sql.transaction(async (tx) => {
    await clearReferenceData(tx, options.replace ?? false);
    await writeTaxonomy(tx);
  });
  // Reference entities first, in larger ranges (they are ~4% of the ids), then the companies.
  const referenceRng = new Prng(seed);
  await pipeline(db, universe.size, batchSize * 20, (from, to) => generateReferenceBatch(referenceRng, universe, from, to), (to) =>
    report('investors and universities', to),
  );
  const companyRng = new Prng(seed ^ 0x5eed);
  const counters = newCounters();
  // With WRITERS batches in flight, the batches before them are the ones surely committed.
  const generateCompanies = (from: number, to: number) =>
    generateCompanyBatch(companyRng, universe, counters, { from, to, committedBelow: from - batchSize * (WRITERS - 1) });
  await pipeline(db, universe.size, batchSize, generateCompanies, (to) => report('companies', to));

  report('derived columns', 0);
  await db.sql.transaction(async (tx) => {
    await recomputeDerived(tx);
    await bumpSequences(tx);
  });
  await db.sql.exec('ANALYZE');
  report('derived columns', universe.size);
  return countReferenceRows(db.sql);
}

/**
 * Generates the next batch while earlier ones are being written. Generation stays sequential, so the
 * rows do not depend on timing; a batch refers only to rows committed before it is written.
 */
async function pipeline(
  db: Pick<Database, 'sql' | 'kind'>,
  size: number,
  step: number,
  generate: (from: number, to: number) => SeedBatch,
  progress: (to: number) => void,
): Promise<void> {
  const inFlight: Promise<void>[] = [];
  for (let from = 1; from <= size; from += step) {
    const to = Math.min(size, from + step - 1);
    const batch = generate(from, to);
    if (inFlight.length >= concurrency(db)) await inFlight.shift();
    const writing = db.sql.transaction((tx: SqlTx) => writeSeedBatch(tx, batch)).then(() => progress(to));
    // Awaited later (in order); this only keeps an early failure from being reported as unhandled.
    writing.catch(() => undefined);
    inFlight.push(writing);
  }
  for (const writing of inFlight) await writing;
}

/**
 * PostgreSQL writes two batches at once on two connections (batches only point at rows of their own
 * batch or of batches at least two back, which are committed by then); PGlite has one connection.
 */
function concurrency(db: Pick<Database, 'kind'>): number {
  return db.kind === 'postgres' ? WRITERS : 1;
}
