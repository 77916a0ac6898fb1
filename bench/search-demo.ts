/**
 * Search on the demo data (docs/finding-companies.md, "Search"): the statement's time for the typed
 * queries of search's evaluation set (test/helpers/search-cases.ts: names, legal forms, typos, short
 * names with a typo, split or joined words, pasted Unicode), p50 and p95 per kind and over all, in
 * ms, two rounds after a warm-up round. The database is migrated and the demo data loaded if empty.
 *
 * Environment: BENCH_DATABASE_URL (default the local server's `venture_bench_search_demo`), or
 * BENCH_EMBEDDED_DIR: the embedded database in that folder instead (kept, so the demo data loads once).
 */
import { openDatabase } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { loadDemoDataIfEmpty } from '../src/data/demo.ts';
import { searchDomain } from '../src/search/domain.ts';
import { runSearch, SEARCH_KINDS } from '../src/search/statement.ts';
import { searchCases } from '../test/helpers/search-cases.ts';

const EMBEDDED_DIR = process.env.BENCH_EMBEDDED_DIR;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench_search_demo';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const at = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
const line = (label: string, samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${label.padEnd(20)}${String(samples.length).padStart(6)}${at(sorted, 0.5).toFixed(2).padStart(8)}${at(sorted, 0.95).toFixed(2).padStart(8)}`;
};

if (!EMBEDDED_DIR) await ensureDatabase(DATABASE_URL);
const db = await openDatabase(EMBEDDED_DIR ? { dataDir: EMBEDDED_DIR, poolSize: 2 } : { url: DATABASE_URL, poolSize: 2 });
try {
  await migrate(db.sql);
  await loadDemoDataIfEmpty(db, quiet as never);
  const cases = await searchCases(db.sql);
  const byKind = new Map<string, number[]>();
  for (let round = 0; round < 3; round += 1) {
    for (const c of cases) {
      const started = performance.now();
      await runSearch(db.sql, { q: c.q, kinds: SEARCH_KINDS, limit: 10, domain: searchDomain(c.q) });
      if (round > 0) byKind.set(c.kind, [...(byKind.get(c.kind) ?? []), performance.now() - started]);
    }
  }
  console.log(`\nsearch statement on the demo data (${EMBEDDED_DIR ? 'embedded' : 'PostgreSQL'}), ${cases.length} typed queries × 2 rounds, ms\n`);
  console.log(`${'kind'.padEnd(20)}${'n'.padStart(6)}${'p50'.padStart(8)}${'p95'.padStart(8)}`);
  for (const [kind, samples] of byKind) console.log(line(kind, samples));
  console.log(line('all', [...byKind.values()].flat()));
} finally {
  await db.close();
}
