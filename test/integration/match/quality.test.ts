/**
 * How often `matched` is right (precision) and how many findable records are matched (recall), on
 * cases generated from the demo data set: the names, websites and ids a CRM export holds, written
 * the ways people write them, and made-up names that must not match. The figures are in
 * docs/finding-companies.md; the floors here keep them from sliding unnoticed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchRecord } from '../../../src/match/input.ts';
import { runMatch } from '../../../src/match/run.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createDemoDatabase } from '../../helpers/demo-database.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createDemoDatabase();
}, 300_000);

afterAll(async () => db?.destroy());

interface Row { id: number; name: string; website: string; hq_country: string; hq_city: string; launch_year: number | null; crunchbase: string | null }
interface Case { record: MatchRecord; expected: number | null; kind: string }

/** A small deterministic generator, so the cases (and the figures) are the same on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const record = (fields: Partial<MatchRecord>): MatchRecord => ({
  name: '', domain: '', hq_country: '', hq_city: '', launch_year: null, external_id: null, metadata: null, ...fields,
});

function typo(name: string, random: () => number): string {
  const at = 1 + Math.floor(random() * (name.length - 2));
  return random() < 0.5 ? name.slice(0, at) + name.slice(at + 1) : name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2);
}

const SUFFIXES = [', Inc.', ' Ltd', ' GmbH', ' LLC', ' Corp.', ' S.A.'];
const SYLLABLES = ['qua', 'zor', 'vex', 'lum', 'tri', 'nox', 'bel', 'kra', 'dyn', 'pho', 'xil', 'mur'];

function casesFrom(rows: readonly Row[]): Case[] {
  const random = prng(33);
  const cases: Case[] = [];
  for (const [index, row] of rows.entries()) {
    const where = { hq_country: row.hq_country };
    switch (index % 6) {
      case 0: cases.push({ kind: 'name + country', expected: row.id, record: record({ name: row.name, ...where }) }); break;
      case 1: cases.push({ kind: 'name with legal form, upper case', expected: row.id, record: record({ name: `${row.name.toUpperCase()}${SUFFIXES[index % SUFFIXES.length]}`, ...where }) }); break;
      case 2: cases.push({ kind: 'name with a typo + country', expected: row.id, record: record({ name: typo(row.name, random), ...where }) }); break;
      case 3: cases.push({ kind: 'website variant', expected: row.id, record: record({ domain: row.website ? new URL(row.website.includes('://') ? row.website : `http://${row.website}`).hostname.replace(/^www\./, '') : '', name: row.name }) }); break;
      case 4: cases.push({ kind: 'external id', expected: row.id, record: record({ external_id: row.crunchbase ? { source: 'crunchbase', id: row.crunchbase } : null, name: row.name }) }); break;
      default: cases.push({ kind: 'name only', expected: row.id, record: record({ name: row.name }) });
    }
  }
  for (let n = 0; n < 100; n += 1) {
    const word = () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join('');
    const name = `${word()[0]!.toUpperCase()}${word().slice(1)} ${random() < 0.5 ? 'Systems' : word()}`;
    cases.push({ kind: 'not in the data', expected: null, record: record({ name, hq_country: 'United States' }) });
  }
  return cases;
}

describe('match quality on generated cases', () => {
  it('keeps precision and recall above their floors', async () => {
    const rows = await db.sql.query<Row>(
      `SELECT e.id, e.name, e.website, e.hq_country, e.hq_city, e.launch_year,
              (SELECT x.external_id FROM entity_external_ids x WHERE x.entity_id = e.id AND x.source = 'crunchbase' LIMIT 1) AS crunchbase
         FROM entities e WHERE e.type = 'company' AND length(e.name) >= 5 AND e.hq_country <> '' AND e.website <> ''
        ORDER BY md5(e.id::text) LIMIT 420`,
    );
    const cases = casesFrom(rows);
    const results = await runMatch(db.sql, { records: cases.map((c) => c.record), minConfidence: null });
    const matched = results.map((result, index) => ({ result, expected: cases[index]!.expected, kind: cases[index]!.kind }));
    const said = matched.filter((m) => m.result.status === 'matched');
    const right = said.filter((m) => m.result.candidate!.id === m.expected);
    const positives = cases.filter((c) => c.expected !== null).length;
    const precision = right.length / said.length;
    const recall = right.length / positives;
    const byKind = new Map<string, { cases: number; right: number; wrong: number; ambiguous: number }>();
    for (const m of matched) {
      const tally = byKind.get(m.kind) ?? { cases: 0, right: 0, wrong: 0, ambiguous: 0 };
      tally.cases += 1;
      if (m.result.status === 'matched') m.result.candidate!.id === m.expected ? (tally.right += 1) : (tally.wrong += 1);
      if (m.result.status === 'ambiguous') tally.ambiguous += 1;
      byKind.set(m.kind, tally);
    }
    console.log(JSON.stringify({ cases: cases.length, positives, matched: said.length, right: right.length, precision, recall, byKind: Object.fromEntries(byKind) }, null, 1));
    expect(cases.length).toBeGreaterThanOrEqual(500);
    expect(precision).toBeGreaterThanOrEqual(0.98);
    expect(recall).toBeGreaterThanOrEqual(0.8);
    expect(byKind.get('not in the data')!.wrong).toBe(0);
  }, 400_000);
});
