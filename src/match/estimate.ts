/**
 * How the model's parameters (src/match/parameters.ts) are estimated from labelled records: records
 * whose entity is known, with the candidates the statement found for them. The u probabilities are
 * not estimated here: they come from the data at every request (src/match/compare.ts).
 * - m: per comparison, the share of records whose own entity falls in each level, among the records
 *   where the comparison can be made (Splink's m from labels), with one more record in every level
 *   so that a level never seen is rare rather than impossible;
 * - calibration: the scale and offset of the log-odds that make the confidences most likely to name
 *   the right answer (the record's entity among its candidates, or none of them), found by Newton's
 *   method on the multinomial log-likelihood, which is concave in the two. On records the model
 *   already tells apart perfectly the likelihood grows without end as the scale does, so a prior
 *   keeps the fit near the uncalibrated model (scale 1 ± 1; offset the log-odds that a record is in
 *   the data at all, ± 2): a maximum a posteriori estimate.
 */
import { LEVELS, type Comparison, type Observation } from './compare.ts';
import type { MatchModel } from './model.ts';

/** The m probabilities from each labelled record's observations of its own entity. */
export function estimateM(pairs: readonly (readonly Observation[])[]): MatchModel['m'] {
  const m = {} as Record<Comparison, Record<string, number>>;
  for (const comparison of Object.keys(LEVELS) as Comparison[]) {
    const levels = LEVELS[comparison];
    const counts = levels.map((level) => pairs.filter((pair) => pair.some((o) => o.comparison === comparison && o.level === level)).length);
    const total = counts.reduce((sum, n) => sum + n, 0) + levels.length;
    m[comparison] = Object.fromEntries(levels.map((level, index) => [level, significant((counts[index]! + 1) / total)]));
  }
  return m as MatchModel['m'];
}

export interface Labelled {
  /** Each candidate's log-odds before calibration: (match weight - log2 N) × ln 2. */
  odds: number[];
  /** The index of the record's entity among its candidates, or null when it is none of them. */
  right: number | null;
}

const SCALE_SPREAD = 1;
const OFFSET_SPREAD = 2;

type Point = { scale: number; offset: number };

/** The calibration under which the labelled records' right answers are most likely, given the prior. */
export function fitCalibration(records: readonly Labelled[]): MatchModel['calibration'] {
  const found = records.filter((record) => record.right !== null).length;
  const prior: Point = { scale: 1, offset: Math.log(Math.max(found, 1) / Math.max(records.length - found, 1)) };
  let at = prior;
  let here = posterior(records, prior, at);
  for (let step = 0; step < 100; step += 1) {
    const [[a, b], [, d]] = here.negatedHessian;
    const det = a * d - b * b;
    const move = { scale: (d * here.gradient[0] - b * here.gradient[1]) / det, offset: (a * here.gradient[1] - b * here.gradient[0]) / det };
    // Newton's step, halved until the posterior grows (a long step can overshoot on near-separable data).
    let length = 1;
    let next = { scale: at.scale + move.scale, offset: at.offset + move.offset };
    let there = posterior(records, prior, next);
    while (there.value < here.value && length > 1e-6) {
      length /= 2;
      next = { scale: at.scale + length * move.scale, offset: at.offset + length * move.offset };
      there = posterior(records, prior, next);
    }
    const done = Math.abs(next.scale - at.scale) < 1e-9 && Math.abs(next.offset - at.offset) < 1e-9;
    at = next;
    here = there;
    if (done) break;
  }
  return { scale: significant(at.scale), offset: significant(at.offset) };
}

/** The log-posterior at a point, its gradient and its negated Hessian (in scale, offset). */
function posterior(records: readonly Labelled[], prior: Point, { scale, offset }: Point) {
  let value = -((scale - prior.scale) ** 2) / (2 * SCALE_SPREAD ** 2) - (offset - prior.offset) ** 2 / (2 * OFFSET_SPREAD ** 2);
  let gs = -(scale - prior.scale) / SCALE_SPREAD ** 2, go = -(offset - prior.offset) / OFFSET_SPREAD ** 2;
  let hss = 1 / SCALE_SPREAD ** 2, hso = 0, hoo = 1 / OFFSET_SPREAD ** 2;
  for (const { odds, right } of records) {
    const z = odds.map((x) => scale * x + offset);
    const top = Math.max(0, ...z);
    const total = z.reduce((sum, value) => sum + Math.exp(value - top), Math.exp(-top));
    const p = z.map((value) => Math.exp(value - top) / total);
    const ex = p.reduce((sum, pi, i) => sum + pi * odds[i]!, 0);
    const e1 = p.reduce((sum, pi) => sum + pi, 0);
    const exx = p.reduce((sum, pi, i) => sum + pi * odds[i]! ** 2, 0);
    // The right answer's log-probability: its log-odds (0 for "none of them") less the log of the total.
    value += (right === null ? 0 : z[right]!) - top - Math.log(total);
    gs += (right === null ? 0 : odds[right]!) - ex;
    go += (right === null ? 0 : 1) - e1;
    hss += exx - ex * ex;
    hso += ex - ex * e1;
    hoo += e1 - e1 * e1;
  }
  return { value, gradient: [gs, go] as const, negatedHessian: [[hss, hso], [hso, hoo]] as const };
}

/** Four significant digits: what the data can tell, and the same on both databases. */
function significant(value: number): number {
  return Number(value.toPrecision(4));
}
