import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../src/match/compare.ts';
import { estimateM, fitCalibration, type Labelled } from '../../../src/match/estimate.ts';
import { confidences } from '../../../src/match/model.ts';
import { prng } from '../../helpers/match-cases.ts';

const observe = (comparison: Observation['comparison'], level: Observation['level']): Observation => ({ comparison, level, u: 0.5, detail: '' });

describe('estimateM', () => {
  it('is the share of labelled pairs in each level, with one more pair in every level', () => {
    const pairs = [
      ...Array.from({ length: 7 }, () => [observe('name', 'exact'), observe('hq_country', 'agree')]),
      ...Array.from({ length: 3 }, () => [observe('name', 'one_edit')]),
    ];
    const m = estimateM(pairs);
    // 7 and 3 of 10, and one more of each of the 5 levels: 8/15, 4/15, 1/15.
    expect(m.name).toEqual({ exact: 0.5333, one_edit: 0.2667, all_words: 0.06667, some_words: 0.06667, different: 0.06667 });
    expect(m.hq_country).toEqual({ agree: 0.8889, disagree: 0.1111 });
    expect(m.website).toEqual({ agree: 0.5, disagree: 0.5 });
  });
});

describe('fitCalibration', () => {
  /** Records whose right answer is drawn from the softmax of a known calibration. */
  function drawn(scale: number, offset: number, count: number): Labelled[] {
    const random = prng(11);
    return Array.from({ length: count }, () => {
      const odds = Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() - 0.5) * 12);
      const p = confidences(odds.map((x) => scale * x + offset));
      let pick = random();
      const right = p.findIndex((pi) => (pick -= pi) < 0);
      return { odds, right: right < 0 ? null : right };
    });
  }

  it('finds the calibration the answers were drawn from', () => {
    const fitted = fitCalibration(drawn(0.6, 1.5, 20_000));
    expect(fitted.scale).toBeCloseTo(0.6, 1);
    expect(fitted.offset).toBeCloseTo(1.5, 1);
  });

  it('stays finite when the model already tells every record apart', () => {
    const separable: Labelled[] = Array.from({ length: 500 }, (_, n) => (n % 2 ? { odds: [10], right: 0 } : { odds: [-10], right: null }));
    const fitted = fitCalibration(separable);
    expect(Number.isFinite(fitted.scale) && Number.isFinite(fitted.offset)).toBe(true);
    expect(fitted.scale).toBeLessThan(10);
  });
});
