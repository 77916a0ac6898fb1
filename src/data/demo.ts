/**
 * The demo data set (prisma/demo/, converted from open data by scripts/convert-open-startups.ts) is
 * loaded on start when the database holds no entities, so a fresh clone answers with real companies.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database, SqlClient } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { importDirectory, type ImportCounts } from './import/index.ts';
import type { SqlTx } from './sql/unnest.ts';

export const DEMO_DATA_DIR = fileURLToPath(new URL('../../prisma/demo', import.meta.url));

/** Names this service's demo-load lock among advisory locks (beside the migration lock). */
const DEMO_LOCK_KEY = 727_011_522;

export interface DemoLoadResult {
  loaded: boolean;
  counts?: ImportCounts;
  durationMs?: number;
}

/**
 * Loads the demo set in one transaction under an advisory lock: instances starting together on one
 * empty PostgreSQL load it once (the others wait, then find entities and skip), and a failed load leaves
 * the database empty rather than half filled.
 */
export async function loadDemoDataIfEmpty(
  db: Pick<Database, 'sql'>,
  logger: Pick<Logger, 'info' | 'warn'>,
  dir: string = DEMO_DATA_DIR,
): Promise<DemoLoadResult> {
  if (!existsSync(dir)) {
    logger.warn({ dir }, 'demo data set not found: starting with an empty database');
    return { loaded: false };
  }
  return db.sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [DEMO_LOCK_KEY]);
    const [row] = await tx.query<{ present: boolean }>('SELECT EXISTS (SELECT 1 FROM entities) AS present');
    if (row?.present) return { loaded: false };
    const started = performance.now();
    logger.info({ dir }, 'database is empty: loading the demo data set');
    const counts = await importDirectory({ sql: withinTransaction(tx) }, dir);
    const durationMs = Math.round(performance.now() - started);
    logger.info({ counts, durationMs }, 'demo data set loaded');
    return { loaded: true, counts, durationMs };
  });
}

/** A SqlClient whose transactions are the enclosing one, so the importer's per-file steps join it. */
function withinTransaction(tx: SqlTx): SqlClient {
  return { ...tx, transaction: (work) => work(tx) };
}
