/**
 * The demo data set (prisma/demo/, converted from open data by scripts/convert-open-startups.ts) is
 * loaded on start when the database holds no entities, so a fresh clone answers with real companies.
 */
import { existsSync } from 'node:fs';
import type { Database, SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { packagePath } from '../package-root.ts';
import { importDirectory, type ImportCounts, type ImportProgress } from './import/index.ts';
import type { SqlTx } from './sql/unnest.ts';

export const DEMO_DATA_DIR = packagePath('prisma/demo');

/** Names this service's demo-load lock among advisory locks (beside the migration lock). */
const DEMO_LOCK_KEY = 727_011_522;

export interface DemoLoadResult {
  loaded: boolean;
  /** Why nothing was loaded. */
  skipped?: 'database has data' | 'no demo data set';
  counts?: ImportCounts;
  durationMs?: number;
}

/**
 * Loads the demo set in one transaction under an advisory lock, with no statement timeout: instances
 * starting together on one empty PostgreSQL load it once (the others wait, then find entities and
 * skip), and a failed load leaves the database empty rather than half filled.
 */
export async function loadDemoDataIfEmpty(
  db: Pick<Database, 'sql'>,
  logger: Pick<Logger, 'info' | 'warn'>,
  dir: string = DEMO_DATA_DIR,
): Promise<DemoLoadResult> {
  if (!existsSync(dir)) {
    logger.warn({ dir }, 'demo data set not found: starting with an empty database');
    return { loaded: false, skipped: 'no demo data set' };
  }
  return db.sql.transaction(async (tx) => {
    // Start-up work runs to its end, as migrations do (docs/operations.md): the load's recompute of
    // derived columns takes seconds, and an instance waiting for another's load waits that long too.
    await tx.exec('SET LOCAL statement_timeout = 0');
    await tx.query('SELECT pg_advisory_xact_lock($1)', [DEMO_LOCK_KEY]);
    const [row] = await tx.query<{ present: boolean }>('SELECT EXISTS (SELECT 1 FROM entities) AS present');
    if (row?.present) return { loaded: false, skipped: 'database has data' };
    const started = performance.now();
    logger.info({ dir }, 'database is empty: loading the demo data set');
    const counts = await importDirectory({ sql: withinTransaction(tx) }, dir, { onProgress: progressLog(logger) });
    const durationMs = Math.round(performance.now() - started);
    logger.info({ counts, durationMs }, 'demo data set loaded');
    return { loaded: true, counts, durationMs };
  });
}

const PROGRESS_INTERVAL_MS = 2000;

/** Progress of the load as log lines: each file when done, and within a file at most every 2 s. */
function progressLog(logger: Pick<Logger, 'info'>): (progress: ImportProgress) => void {
  let last = Date.now();
  return ({ file, records, bytesRead, totalBytes, done }) => {
    const now = Date.now();
    if (!done && now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    const percent = totalBytes > 0 ? Math.floor((bytesRead / totalBytes) * 100) : 100;
    logger.info({ file, records, percent }, done ? `demo data: ${file} loaded (${records} records)` : `demo data: ${file} ${percent}%`);
  };
}

/** A SqlClient whose transactions are the enclosing one, so the importer's per-file steps join it. */
function withinTransaction(tx: SqlTx): SqlClient {
  return {
    ...tx,
    prepared: (text, params) => tx.query(text, [...params]),
    // The importer streams nothing; a read asked this way comes in one batch.
    stream: async function* <Row,>(text: string, params: readonly unknown[]) {
      yield await tx.query<Row>(text, [...params]);
    },
    transaction: (work) => work(tx),
  };
}
