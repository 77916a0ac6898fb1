/**
 * The indexes the common aggregates need exist after migrating and are the ones PostgreSQL reads them
 * from: index entries alone, no heap (prisma/migrations/20261124000000_aggregate_indexes). The plans are
 * forced with enable_seqscan off, since at a test's few hundred rows a sequential scan is cheaper; the
 * plan at a million rows is the one measured in bench/README.md, "Aggregates".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 200, seed: 5 });
  // An index-only scan reads no heap only for pages the visibility map marks all-visible.
  await app.db.sql.exec('VACUUM entities, funding_rounds');
}, 120_000);

afterAll(async () => app?.close());

async function plan(statement: string): Promise<string> {
  const rows = await app.db.sql.transaction(async (tx) => {
    await tx.exec('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off');
    return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`);
  });
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

describe('aggregate indexes', () => {
  it('counts live entities by country from entities_live_hq_country_idx alone', async () => {
    expect(await plan('SELECT r.hq_country, count(*) FROM entities r WHERE r.deleted_at IS NULL GROUP BY 1')).toMatch(
      /Index Only Scan using entities_live_hq_country_idx/,
    );
  });

  it('reads a date range of rounds with their type and amount from funding_rounds_date_cover_idx alone', async () => {
    const statement =
      "SELECT r.round_type, percentile_cont(0.5) WITHIN GROUP (ORDER BY r.amount_usd::float8) FROM funding_rounds r WHERE r.date >= '2015-01-01' GROUP BY 1";
    expect(await plan(statement)).toMatch(/Index Only Scan using funding_rounds_date_cover_idx/);
  });
});
