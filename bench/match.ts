/**
 * POST /api/match at scale (docs/finding-companies.md, "Matching a CRM export"): seeds (once) a
 * PostgreSQL database with BENCH_ENTITIES entities, then times batches of 1,000 records drawn from the
 * seeded data the ways a CRM export holds them: websites with scheme, www. and paths, names with a
 * legal form, names with a typo, CrunchBase ids, and names that are not there. Prints each batch's
 * time (the statistics, a statement per 200 records and the comparisons, as the API runs them).
 *
 * Environment: BENCH_DATABASE_URL (default the local server's `venture_bench_match`), BENCH_ENTITIES
 * (1000000), BENCH_BATCHES (5).
 */
import { openDatabase, type Database } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { seedOnce } from './seeded.ts';
import { readMatchRequest } from '../src/match/input.ts';
import { runMatch } from '../src/match/run.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench_match';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 1_000_000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 5);

async function prepare(db: Database): Promise<void> {
  await seedOnce(db, ENTITIES);
  for (const table of ['entities', 'entity_external_ids']) await db.sql.exec(`VACUUM ANALYZE ${table}`);
}

interface Seeded { id: number; name: string; website: string; crunchbase: string | null }

/** One batch of 1,000 records, a fifth of each kind, from rows not used by earlier batches. */
async function batch(db: Database, index: number): Promise<unknown[]> {
  const rows = await db.sql.query<Seeded>(
    `SELECT e.id, e.name, e.website, (SELECT x.external_id FROM entity_external_ids x WHERE x.entity_id = e.id AND x.source = 'crunchbase') AS crunchbase
       FROM entities e WHERE e.deleted_at IS NULL AND e.website <> '' AND length(e.name) >= 6 ORDER BY hashtext(e.id::text) OFFSET $1 LIMIT 1000`,
    [index * 1000],
  );
  return rows.map((row, n) => {
    switch (n % 5) {
      case 0: return { website: `${row.website.replace('https://', 'http://')}/pricing?utm_source=crm` };
      case 1: return { name: `${row.name.toUpperCase()} Inc.` };
      case 2: return { name: row.name.slice(0, 2) + row.name[3] + row.name[2] + row.name.slice(4) };
      case 3: return row.crunchbase ? { external_id: `crunchbase:${row.crunchbase}` } : { name: row.name };
      default: return { name: `Zqx${n}vvk Holdings` };
    }
  });
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL, poolSize: 2 });
  try {
    await prepare(db);
    for (let index = 0; index < BATCHES; index += 1) {
      const records = await batch(db, index);
      const request = readMatchRequest({ records }, 'body');
      const started = performance.now();
      const results = await runMatch(db.sql, request);
      const ms = performance.now() - started;
      const statuses = results.reduce<Record<string, number>>((counts, r) => ({ ...counts, [r.status]: (counts[r.status] ?? 0) + 1 }), {});
      console.log(`batch ${index + 1}: ${records.length} records in ${ms.toFixed(0)} ms ${JSON.stringify(statuses)}`);
    }
  } finally {
    await db.close();
  }
}

await main();
