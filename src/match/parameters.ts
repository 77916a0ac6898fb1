/**
 * The estimated parameters of matching (docs/finding-companies.md, "How they are weighed"), written
 * by test/integration/match/quality.test.ts from the tuning part of the evaluation set (run it with
 * `-u` to write them again; it fails when they differ from what the data gives):
 * - m: per comparison and level, the share of records and their own entity that fall in it;
 * - calibration: the scale and offset that turn a candidate's match weight into a probability.
 */
import type { MatchModel } from './model.ts';

export const PARAMETERS: MatchModel = {
  m: {
    external_id: { agree: 0.9908, disagree: 0.009174 },
    website: { agree: 0.9903, disagree: 0.009709 },
    name: { exact: 0.7441, one_edit: 0.25, all_words: 0.003555, some_words: 0.001185, different: 0.001185 },
    hq_country: { agree: 0.9981, disagree: 0.001905 },
    hq_city: { agree: 0.9444, disagree: 0.05556 },
    launch_year: { same: 0.6364, one_apart: 0.303, near: 0.0303, far: 0.0303 },
  },
  calibration: { scale: 1.315, offset: 12.23 },
};
