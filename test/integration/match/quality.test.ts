/**
 * Matching measured on data it was not tuned on (docs/finding-companies.md, "Measured quality"): the
 * evaluation set generated from the demo data (test/helpers/match-cases.ts) is split into a fixed
 * tuning part and a held-out part. The model's parameters (src/match/parameters.ts) must be those the
 * tuning part gives (run this file with `-u` to write them again after changing the model or the
 * data); the held-out part, answered as the API answers it, must keep precision at 0.99 or more,
 * recall at 0.9 or more for every kind, and match no made-up name; and per band of confidence, the
 * share of records whose best candidate is right must stay near the band.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAMETERS } from '../../../src/match/parameters.ts';
import type { MatchModel } from '../../../src/match/model.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createDemoDatabase } from '../../helpers/demo-database.ts';
import { MADE_UP, matchCases, type MatchCase } from '../../helpers/match-cases.ts';
import { evaluate } from '../../helpers/match-evaluation.ts';

let db: TestDatabase;
let cases: MatchCase[];

beforeAll(async () => {
  db = await createDemoDatabase();
  cases = await matchCases(db.sql);
}, 600_000);

afterAll(async () => db?.destroy());

/** parameters.ts as the estimate writes it. */
function parametersSource(model: MatchModel): string {
  const levels = (record: Record<string, number>) => `{ ${Object.entries(record).map(([level, m]) => `${level}: ${m}`).join(', ')} }`;
  return `/**
 * The estimated parameters of matching (docs/finding-companies.md, "How they are weighed"), written
 * by test/integration/match/quality.test.ts from the tuning part of the evaluation set (run it with
 * \`-u\` to write them again; it fails when they differ from what the data gives):
 * - m: per comparison and level, the share of records and their own entity that fall in it;
 * - calibration: the scale and offset that turn a candidate's match weight into a probability.
 */
import type { MatchModel } from './model.ts';

export const PARAMETERS: MatchModel = {
  m: {
${Object.entries(model.m).map(([comparison, record]) => `    ${comparison}: ${levels(record)},`).join('\n')}
  },
  calibration: { scale: ${model.calibration.scale}, offset: ${model.calibration.offset} },
};
`;
}

describe('match quality on the evaluation set', () => {
  it('has a tuning part and a held-out part of every kind', () => {
    for (const part of ['tuning', 'held-out'] as const) {
      const kinds = new Set(cases.filter((c) => c.part === part).map((c) => c.kind));
      expect([...kinds].sort(), part).toEqual(['case or spacing', 'external id', 'legal form', MADE_UP, 'name + country', 'name only', 'typo', 'website']);
    }
    expect(cases.filter((c) => c.part === 'held-out').length).toBeGreaterThanOrEqual(600);
  });

  it('uses the parameters the tuning part gives, and keeps its figures on the held-out part', async () => {
    const { estimated, tuning, heldOut } = await evaluate(db.sql, cases, PARAMETERS);
    console.log(JSON.stringify({ estimated, tuning, heldOut }));
    await expect(parametersSource(estimated)).toMatchFileSnapshot('../../../src/match/parameters.ts');
    expect(heldOut.precision).toBeGreaterThanOrEqual(0.99);
    for (const [kind, tally] of Object.entries(heldOut.byKind)) {
      if (kind === MADE_UP) expect(tally.right + tally.wrong, 'made-up names matched').toBe(0);
      else expect(tally.recall, kind).toBeGreaterThanOrEqual(0.9);
    }
    // Calibrated: where a band holds enough records to tell, the share right is near the band.
    for (const band of heldOut.calibration.filter((b) => b.records >= 20)) {
      const [low, high] = band.band.split('-').map(Number) as [number, number];
      expect(band.share, band.band).toBeGreaterThanOrEqual(low - 0.1);
      expect(band.share, band.band).toBeLessThanOrEqual(high + 0.1);
    }
  }, 600_000);
});
