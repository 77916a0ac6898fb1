/**
 * Search measured on typed queries it was not tuned on (docs/finding-companies.md, "Search: measured
 * quality"): the evaluation set generated from the demo data (test/helpers/search-cases.ts) has a
 * fixed tuning part and a held-out part. On the held-out part, answered as the API answers, every
 * answer lists its hits in the order of their scores, and the company is the first hit as often as
 * the figures the documentation reports (each kind's floor a little under them, as the two databases
 * may order hits of one score and prominence otherwise).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../helpers/db.ts';
import { createDemoDatabase } from '../../helpers/demo-database.ts';
import { SEARCH_CASE_KINDS, searchCases, type SearchCase } from '../../helpers/search-cases.ts';
import { evaluateSearch } from '../../helpers/search-evaluation.ts';

let db: TestDatabase;
let cases: SearchCase[];

beforeAll(async () => {
  db = await createDemoDatabase();
  cases = await searchCases(db.sql);
}, 600_000);

afterAll(async () => db?.destroy());

/** The least share of held-out queries whose company is the first hit, and among the ten, per kind. */
const FLOORS: Record<(typeof SEARCH_CASE_KINDS)[number], { first: number; top10: number }> = {
  name: { first: 0.98, top10: 1 },
  'legal form': { first: 0.98, top10: 1 },
  typo: { first: 0.95, top10: 0.98 },
  'short name typo': { first: 0.75, top10: 0.95 },
  'split or joined': { first: 0.98, top10: 1 },
  'pasted unicode': { first: 0.98, top10: 1 },
};

describe('search quality on the evaluation set', () => {
  it('has a tuning part and a held-out part of every kind', () => {
    for (const part of ['tuning', 'held-out'] as const) {
      expect(new Set(cases.filter((c) => c.part === part).map((c) => c.kind))).toEqual(new Set(SEARCH_CASE_KINDS));
    }
    expect(cases.filter((c) => c.part === 'held-out').length).toBeGreaterThanOrEqual(250);
  });

  it('lists every held-out answer in score order, with the company first as often as documented', async () => {
    const heldOut = await evaluateSearch(db.sql, cases.filter((c) => c.part === 'held-out'));
    console.log(JSON.stringify({ ...heldOut, misses: heldOut.misses.slice(0, 20) }));
    expect(heldOut.outOfOrder).toBe(0);
    for (const kind of SEARCH_CASE_KINDS) {
      const figures = heldOut.byKind[kind]!;
      expect(figures.firstShare, `${kind}: first`).toBeGreaterThanOrEqual(FLOORS[kind].first);
      expect(figures.top10Share, `${kind}: among the ten`).toBeGreaterThanOrEqual(FLOORS[kind].top10);
    }
  }, 600_000);
});
