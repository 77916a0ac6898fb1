/**
 * The model a match is weighed by (the Fellegi-Sunter model of record linkage, as Splink builds it):
 * per comparison and level an m probability (src/match/parameters.ts) and a u probability (from the
 * data, src/match/compare.ts). A candidate's match weight is the sum over its comparisons of
 * log2(m / u). The prior that a record is one given entity of the N is 1 in N, so its log-odds
 * against "not in the data" are the weight less log2 N; the calibration scales those log-odds and
 * adds an offset (fitted on the tuning part of the evaluation set, as Splink estimates the prior:
 * the independence the model assumes between comparisons, and a name's u taken from its words, make
 * raw weights over- or underconfident as a whole). A
 * record is at most one entity, so each candidate's confidence is its share of a softmax over the
 * record's candidates and "none of them" (whose log-odds are 0): two candidates that nothing tells
 * apart share it, and neither is matched.
 */
import type { Comparison, Level, Observation } from './compare.ts';

export interface MatchModel {
  m: { [C in Comparison]: Record<Level<C>, number> };
  calibration: { scale: number; offset: number };
}

/** Each observation's weight, log2(m / u), and their sum. */
export function matchWeight(observations: readonly Observation[], model: MatchModel): { total: number; weights: number[] } {
  const weights = observations.map(({ comparison, level, u }) => {
    const m = (model.m[comparison] as Record<string, number>)[level]!;
    return Math.log2(m / u);
  });
  return { total: weights.reduce((sum, weight) => sum + weight, 0), weights };
}

/** The log-odds (natural) of each candidate against "none of them", from its match weight. */
export function logOdds(weight: number, entities: number, calibration: MatchModel['calibration']): number {
  return calibration.scale * (weight - Math.log2(Math.max(entities, 1))) * Math.LN2 + calibration.offset;
}

/** Each candidate's probability of being the record's entity, from the candidates' log-odds. */
export function confidences(odds: readonly number[]): number[] {
  const top = Math.max(0, ...odds);
  const exps = odds.map((value) => Math.exp(value - top));
  const none = Math.exp(-top);
  const total = exps.reduce((sum, value) => sum + value, none);
  return exps.map((value) => value / total);
}
