/**
 * How a record's candidates become its answer (docs/finding-companies.md, "Matching a CRM export"):
 * each candidate is compared (src/match/compare.ts), weighed (src/match/model.ts) and given the
 * probability that it is the record's entity. A record is `matched` only when its best candidate's
 * probability reaches the threshold (which min_confidence may raise); `not_found` when no candidate
 * reaches the floor; otherwise `ambiguous`.
 */
import { compare, type Statistics } from './compare.ts';
import type { MatchRecord } from './input.ts';
import { confidences, logOdds, matchWeight, type MatchModel } from './model.ts';
import type { CandidateRow } from './statement.ts';

/** A candidate needs this confidence to be `matched` (min_confidence only raises it). */
export const MATCH_THRESHOLD = 0.9;
/** Candidates below this are no candidates: a record with none is `not_found`. */
export const CANDIDATE_FLOOR = 0.05;
export const MAX_ALTERNATIVES = 5;

export interface Reason {
  field: string;
  agrees: boolean;
  detail: string;
}

export interface Candidate {
  id: number;
  name: string;
  website: string;
  hq_country: string;
  confidence: number;
  reasons: Reason[];
}

export interface MatchResult {
  status: 'matched' | 'ambiguous' | 'not_found';
  candidate: Candidate | null;
  alternatives: Candidate[];
  metadata: unknown;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const signed = (value: number) => `${value >= 0 ? '+' : ''}${round(value, 1)}`;

/** Each candidate row with its match weight and the reasons it is made of. */
export function weighCandidates(record: MatchRecord, rows: readonly CandidateRow[], statistics: Statistics, model: MatchModel) {
  return rows.map((row) => {
    const observations = compare(record, row, statistics);
    const { total, weights } = matchWeight(observations, model);
    const reasons = observations.map((observation, index): Reason => ({
      field: observation.comparison,
      agrees: weights[index]! > 0,
      detail: `${observation.detail} (weight ${signed(weights[index]!)})`,
    }));
    return { row, weight: total, reasons };
  });
}

/** A record's answer from its candidate rows; `minConfidence` raises the threshold of `matched`. */
export function decide(
  record: MatchRecord,
  rows: readonly CandidateRow[],
  statistics: Statistics,
  model: MatchModel,
  minConfidence: number | null,
): MatchResult {
  const entities = statistics.get('name.entities') ?? 1;
  const weighed = weighCandidates(record, rows, statistics, model);
  const probabilities = confidences(weighed.map(({ weight }) => logOdds(weight, entities, model.calibration)));
  const candidates = weighed
    .map(({ row, reasons }, index): Candidate => ({
      id: row.id, name: row.name, website: row.website, hq_country: row.hq_country, confidence: round(probabilities[index]!, 3), reasons,
    }))
    .filter((candidate) => candidate.confidence >= CANDIDATE_FLOOR)
    .sort((a, b) => b.confidence - a.confidence || a.id - b.id);
  const [best, ...rest] = candidates;
  if (!best) return { status: 'not_found', candidate: null, alternatives: [], metadata: record.metadata };
  const threshold = Math.max(MATCH_THRESHOLD, minConfidence ?? 0);
  const status = best.confidence >= threshold ? 'matched' : 'ambiguous';
  return { status, candidate: best, alternatives: rest.slice(0, MAX_ALTERNATIVES), metadata: record.metadata };
}
