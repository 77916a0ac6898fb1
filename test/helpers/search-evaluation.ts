/**
 * Search measured on its evaluation set (test/helpers/search-cases.ts), each query answered as the
 * API answers it (all kinds, 10 hits): per kind, how often the company is the first hit and how often
 * it is among the ten, and whether every answer lists its hits in the order of their scores.
 */
import type { SqlClient } from '../../src/db/client.ts';
import { searchDomain } from '../../src/search/domain.ts';
import { runSearch, SEARCH_KINDS, type SearchHit } from '../../src/search/statement.ts';
import type { SearchCase } from './search-cases.ts';

export interface KindFigures { cases: number; first: number; top10: number; firstShare: number; top10Share: number }
export interface SearchReport {
  cases: number;
  first: number;
  /** Answers whose scores are not descending. */
  outOfOrder: number;
  byKind: Record<string, KindFigures>;
  /** The cases whose company is not first: what to look at. */
  misses: { kind: string; q: string; expected: number; hits: string[] }[];
}

const isExpected = (hit: SearchHit, c: SearchCase) => hit.type !== 'founder' && hit.id === c.expected;

export async function evaluateSearch(sql: Pick<SqlClient, 'prepared'>, cases: readonly SearchCase[]): Promise<SearchReport> {
  const byKind: Record<string, KindFigures> = {};
  const misses: SearchReport['misses'] = [];
  let outOfOrder = 0;
  for (const c of cases) {
    const hits = await runSearch(sql, { q: c.q, kinds: SEARCH_KINDS, limit: 10, domain: searchDomain(c.q) });
    const figures = (byKind[c.kind] ??= { cases: 0, first: 0, top10: 0, firstShare: 0, top10Share: 0 });
    figures.cases += 1;
    if (hits[0] && isExpected(hits[0], c)) figures.first += 1;
    else misses.push({ kind: c.kind, q: c.q, expected: c.expected, hits: hits.slice(0, 3).map((hit) => `${hit.name} ${hit.score}`) });
    if (hits.some((hit) => isExpected(hit, c))) figures.top10 += 1;
    if (hits.some((hit, index) => index > 0 && hit.score > hits[index - 1]!.score)) outOfOrder += 1;
  }
  for (const figures of Object.values(byKind)) {
    figures.firstShare = Number((figures.first / figures.cases).toFixed(3));
    figures.top10Share = Number((figures.top10 / figures.cases).toFixed(3));
  }
  const first = Object.values(byKind).reduce((sum, figures) => sum + figures.first, 0);
  return { cases: cases.length, first, outOfOrder, byKind, misses };
}
