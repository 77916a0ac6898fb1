/**
 * A company's funding history: stages in order with growing amounts, dated from its launch year, each
 * with investors (popular investors more often) and usually a lead; post-money valuations on later
 * rounds (the largest reach $1B+), some recorded as valuations; now and then an acquisition or an IPO.
 */
import type { Prng } from './prng.ts';
import type { RoundInvestorRow, RoundRow, ValuationRow } from './rows.ts';
import type { IdCounters, Universe } from './universe.ts';

const STAGES = ['pre_seed', 'seed', 'series_a', 'series_b', 'series_c', 'series_d', 'series_e'] as const;
const MEDIAN_USD = [400_000, 1_800_000, 9_000_000, 28_000_000, 65_000_000, 140_000_000, 280_000_000];
/** How many stages a company gets through: most raise little, few go far. */
const STAGE_COUNT_WEIGHTS = [22, 24, 20, 14, 9, 6, 3, 2];
const LAST_DATE = Date.UTC(2025, 11, 31);
const MONTH_MS = 30.44 * 86_400_000;

export interface CompanyRounds {
  rounds: RoundRow[];
  roundInvestors: RoundInvestorRow[];
  valuations: ValuationRow[];
  /** Funding raised (acquisitions excluded), as entities.total_funding_usd holds it. */
  totalFunding: bigint;
  isUnicorn: boolean;
}

function roundTo(value: number, step: number): number {
  return Math.max(step, Math.round(value / step) * step);
}

function pickInvestors(rng: Prng, universe: Universe, count: number): number[] {
  const ids = universe.investorIds;
  const chosen = new Set<number>();
  for (let attempt = 0; chosen.size < Math.min(count, ids.length) && attempt < count * 4; attempt += 1) {
    // Squaring skews the choice towards the low indices: a few investors are very active.
    chosen.add(ids[Math.floor(rng.next() ** 1.6 * ids.length)] ?? 0);
  }
  return [...chosen];
}

export function generateRounds(
  rng: Prng,
  universe: Universe,
  counters: IdCounters,
  company: { id: number; slug: string; launchYear: number },
): CompanyRounds {
  const out: CompanyRounds = { rounds: [], roundInvestors: [], valuations: [], totalFunding: 0n, isUnicorn: false };
  const stageCount = rng.weighted([0, 1, 2, 3, 4, 5, 6, 7], STAGE_COUNT_WEIGHTS);
  let date = Date.UTC(company.launchYear, rng.int(0, 11), rng.int(1, 28)) + rng.int(2, 14) * MONTH_MS;
  for (let stage = rng.chance(0.5) ? 0 : 1, n = 0; n < stageCount && stage < STAGES.length && date < LAST_DATE; stage += 1, n += 1) {
    const amount = roundTo(rng.logNormal(MEDIAN_USD[stage] ?? 1_000_000, 0.55), 10_000);
    const valuation = stage >= 2 && rng.chance(0.6) ? roundTo(amount * (2.5 + rng.next() * 4.5), 1_000_000) : null;
    addRound(rng, universe, counters, out, company, { type: STAGES[stage] ?? 'venture', amount, valuation, date });
    date += rng.int(9, 26) * MONTH_MS;
  }
  if (stageCount > 0 && rng.chance(0.08)) {
    addRound(rng, universe, counters, out, company, { type: rng.pick(['debt', 'grant']), amount: roundTo(rng.logNormal(3_000_000, 0.8), 10_000), valuation: null, date: Math.min(date, LAST_DATE) });
  }
  addExit(rng, universe, counters, out, company, date);
  return out;
}

interface RoundSpec {
  type: string;
  amount: number | null;
  valuation: number | null;
  date: number;
}

function addRound(
  rng: Prng,
  universe: Universe,
  counters: IdCounters,
  out: CompanyRounds,
  company: { id: number; slug: string },
  spec: RoundSpec,
): RoundRow {
  counters.round += 1;
  const id = counters.round;
  const date = new Date(spec.date).toISOString().slice(0, 10);
  const round: RoundRow = {
    id,
    slug: `${company.slug}-${spec.type.replaceAll('_', '-')}-${id}`,
    entity_id: company.id,
    round_type: spec.type,
    amount_usd: spec.amount === null ? null : String(spec.amount),
    currency: 'USD',
    date,
    valuation_usd: spec.valuation === null ? null : String(spec.valuation),
    source_url: `https://news.example.com/rounds/${id}`,
    created_at: `${date}T12:00:00.000Z`,
  };
  out.rounds.push(round);
  if (spec.type !== 'acquisition' && spec.amount !== null) out.totalFunding += BigInt(spec.amount);
  if (spec.valuation !== null && spec.valuation >= 1e9) out.isUnicorn = true;
  if (spec.type !== 'acquisition' && spec.type !== 'ipo' && spec.type !== 'grant') {
    const investors = pickInvestors(rng, universe, rng.int(1, spec.type === 'pre_seed' || spec.type === 'seed' ? 3 : 5));
    const hasLead = rng.chance(0.75);
    investors.forEach((investorId, index) =>
      out.roundInvestors.push({ round_id: id, investor_id: investorId, is_lead: hasLead && index === 0 }),
    );
  }
  if (spec.valuation !== null && rng.chance(0.5)) addValuation(counters, out, company, spec.valuation, date, 'round', id);
  return round;
}

function addValuation(
  counters: IdCounters,
  out: CompanyRounds,
  company: { id: number; slug: string },
  valuation: number,
  date: string,
  source: string,
  transactionId: number | null,
): void {
  counters.valuation += 1;
  out.valuations.push({
    id: counters.valuation,
    slug: `${company.slug}-valuation-${counters.valuation}`,
    entity_id: company.id,
    valuation_usd: String(valuation),
    date,
    source,
    transaction_id: transactionId,
  });
  if (valuation >= 1e9) out.isUnicorn = true;
}

function addExit(
  rng: Prng,
  universe: Universe,
  counters: IdCounters,
  out: CompanyRounds,
  company: { id: number; slug: string },
  after: number,
): void {
  const date = Math.min(after + rng.int(6, 30) * MONTH_MS, LAST_DATE);
  const raised = Number(out.totalFunding);
  if (raised > 50_000_000 && rng.chance(0.08)) {
    const amount = roundTo(raised * (0.5 + rng.next()), 1_000_000);
    addRound(rng, universe, counters, out, company, { type: 'ipo', amount, valuation: roundTo(amount * 8, 1_000_000), date });
  } else if (rng.chance(0.04)) {
    const price = rng.chance(0.6) ? roundTo(Math.max(raised, 1_000_000) * (1 + rng.next() * 4), 100_000) : null;
    addRound(rng, universe, counters, out, company, { type: 'acquisition', amount: price, valuation: null, date });
  } else if (raised > 0 && rng.chance(0.03)) {
    const valuation = roundTo(raised * (2 + rng.next() * 10), 1_000_000);
    addValuation(counters, out, company, valuation, new Date(date).toISOString().slice(0, 10), 'secondary market', null);
  }
}
