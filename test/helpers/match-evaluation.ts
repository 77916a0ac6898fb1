/**
 * Matching measured on its evaluation set (test/helpers/match-cases.ts): the model's parameters
 * estimated from the tuning part (src/match/estimate.ts), then the held-out part answered with them,
 * as the API answers: precision, recall per kind, made-up names matched, and how often the best
 * candidate is right per band of its confidence (calibration).
 */
import type { SqlClient } from '../../src/db/client.ts';
import type { Statistics } from '../../src/match/compare.ts';
import { compare } from '../../src/match/compare.ts';
import { estimateM, fitCalibration, type Labelled } from '../../src/match/estimate.ts';
import { readMatchRequest, type MatchRecord } from '../../src/match/input.ts';
import { logOdds, type MatchModel } from '../../src/match/model.ts';
import { groupByRecord } from '../../src/match/run.ts';
import { decide, weighCandidates, type MatchResult } from '../../src/match/score.ts';
import { findCandidates, readStatistics, type CandidateRow } from '../../src/match/statement.ts';
import { MADE_UP, type MatchCase } from './match-cases.ts';

interface Answered { case: MatchCase; record: MatchRecord; rows: CandidateRow[] }

export interface KindTally { cases: number; right: number; wrong: number; ambiguous: number; not_found: number }
export interface Report {
  cases: number;
  matched: number;
  right: number;
  precision: number;
  recall: number;
  byKind: Record<string, KindTally & { recall: number }>;
  /** Per band of the best candidate's confidence: records, and how many of them it is right for. */
  calibration: { band: string; records: number; right: number; share: number }[];
}

const BANDS = [0.05, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001];

async function answer(sql: Pick<SqlClient, 'prepared'>, cases: readonly MatchCase[]): Promise<Answered[]> {
  const answered: Answered[] = [];
  for (let start = 0; start < cases.length; start += 1000) {
    const chunk = cases.slice(start, start + 1000);
    const { records } = readMatchRequest({ records: chunk.map((c) => c.record) }, 'body');
    const byRecord = groupByRecord(await findCandidates(sql, records));
    chunk.forEach((c, index) => answered.push({ case: c, record: records[index]!, rows: byRecord.get(index) ?? [] }));
  }
  return answered;
}

/** The parameters the tuning part gives: m from each record's observations of its own entity, then the calibration. */
export function estimate(tuning: readonly Answered[], statistics: Statistics): MatchModel {
  const own = tuning.flatMap(({ case: c, record, rows }) => {
    const row = rows.find((candidate) => candidate.id === c.expected);
    return row ? [compare(record, row, statistics)] : [];
  });
  const m = estimateM(own);
  const raw: MatchModel = { m, calibration: { scale: 1, offset: 0 } };
  const entities = statistics.get('name.entities') ?? 1;
  const labelled = tuning.map(({ case: c, record, rows }): Labelled => {
    const weighed = weighCandidates(record, rows, statistics, raw);
    const right = rows.findIndex((row) => row.id === c.expected);
    return { odds: weighed.map(({ weight }) => logOdds(weight, entities, raw.calibration)), right: right < 0 ? null : right };
  });
  return { m, calibration: fitCalibration(labelled) };
}

export function report(answered: readonly Answered[], results: readonly MatchResult[]): Report {
  const byKind: Record<string, KindTally> = {};
  const bands = BANDS.slice(0, -1).map((low, index) => ({ band: `${low}-${Math.min(BANDS[index + 1]!, 1)}`, low, high: BANDS[index + 1]!, records: 0, right: 0 }));
  answered.forEach(({ case: c }, index) => {
    const result = results[index]!;
    const tally = (byKind[c.kind] ??= { cases: 0, right: 0, wrong: 0, ambiguous: 0, not_found: 0 });
    tally.cases += 1;
    const isRight = result.candidate !== null && result.candidate.id === c.expected;
    if (result.status === 'matched') tally[isRight ? 'right' : 'wrong'] += 1;
    else tally[result.status] += 1;
    const band = bands.find((b) => result.candidate && result.candidate.confidence >= b.low && result.candidate.confidence < b.high);
    if (band) {
      band.records += 1;
      if (isRight) band.right += 1;
    }
  });
  const positives = answered.filter(({ case: c }) => c.expected !== null).length;
  const tallies = Object.values(byKind);
  const right = tallies.reduce((sum, t) => sum + t.right, 0);
  const matched = right + tallies.reduce((sum, t) => sum + t.wrong, 0);
  return {
    cases: answered.length,
    matched,
    right,
    precision: matched ? right / matched : 1,
    recall: right / positives,
    byKind: Object.fromEntries(Object.entries(byKind).map(([kind, t]) => [kind, { ...t, recall: kind === MADE_UP ? 0 : t.right / t.cases }])),
    calibration: bands.map(({ band, records, right }) => ({ band, records, right, share: records ? right / records : 0 })),
  };
}

/** The parameters estimated on the tuning part, and both parts' figures under `model` (by default those parameters). */
export async function evaluate(sql: Pick<SqlClient, 'prepared'>, cases: readonly MatchCase[], model?: MatchModel) {
  const statistics = await readStatistics(sql);
  const answered = await answer(sql, cases);
  const part = (name: MatchCase['part']) => answered.filter(({ case: c }) => c.part === name);
  const estimated = estimate(part('tuning'), statistics);
  const figures = (records: readonly Answered[]) =>
    report(records, records.map(({ record, rows }) => decide(record, rows, statistics, model ?? estimated, null)));
  return { estimated, tuning: figures(part('tuning')), heldOut: figures(part('held-out')) };
}
