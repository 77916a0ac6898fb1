/** Founders of a company (with education, backgrounds, earlier companies) and news about its deals. */
import { slugify, uuidV5 } from '../ids.ts';
import { createdAt, isoAt, type EntityDraft } from './generate-entity.ts';
import type { CompanyRounds } from './generate-rounds.ts';
import type { Prng } from './prng.ts';
import { BACKGROUNDS, DEGREES, FEMALE_FIRST_NAMES, FIRST_NAMES, LAST_NAMES, MAJORS, TAG_ID, TECHNOLOGIES, TITLES } from './reference-data.ts';
import type { SeedBatch } from './batch.ts';
import { kindOf, type IdCounters, type Universe } from './universe.ts';

const FOUNDER_COUNT_WEIGHTS = [10, 35, 35, 20];

export interface GenerationContext {
  rng: Prng;
  universe: Universe;
  counters: IdCounters;
  batch: SeedBatch;
  /** Companies below this id are committed before this batch is written, so founders may point at them. */
  committedBelow: number;
  /** First id of this batch: earlier companies of the batch are written before its founders. */
  batchFrom: number;
}

export function generateFounders(context: GenerationContext, company: EntityDraft, funding: CompanyRounds): void {
  const { rng, counters, batch } = context;
  const count = rng.weighted([0, 1, 2, 3], FOUNDER_COUNT_WEIGHTS);
  const { launchYear } = company;
  for (let n = 0; n < count; n += 1) {
    counters.founder += 1;
    const id = counters.founder;
    const first = rng.pick(FIRST_NAMES);
    const name = `${first} ${rng.pick(LAST_NAMES)}`;
    const previous = rng.chance(0.15) ? earlierCompany(context, company.row.id) : undefined;
    const raised = Number(funding.totalFunding);
    batch.founders.push({
      id,
      uuid: uuidV5(`seed:${context.universe.seed}:founder:${id}`),
      slug: `${slugify(name)}-${id}`,
      name,
      tagline: `${n === 0 ? 'Founder' : 'Co-founder'} of ${company.row.name}`,
      image: `https://images.example.com/founders/${id}.png`,
      platform_url: `https://platform.example.com/founders/${slugify(name)}-${id}`,
      gender: rng.chance(0.02) ? 'other' : FEMALE_FIRST_NAMES.has(first) ? 'female' : 'male',
      is_serial_founder: previous !== undefined,
      is_super_founder: raised >= 100_000_000 && rng.chance(0.6),
      is_promising_founder: launchYear >= 2019 && raised >= 2_000_000,
      is_strong_founder: raised >= 20_000_000 || rng.chance(0.05),
      launch_year: launchYear,
      hq_country: company.row.hq_country,
      hq_city: company.row.hq_city,
      location_country_id: company.place.countryId,
      created_at: isoAt(createdAt(company.row.id) + n * 1000),
      updated_at: company.row.updated_at,
    });
    addRole(context, id, company.row.id, { title: rng.pick(TITLES), start: launchYear, end: null, past: false });
    if (previous) addRole(context, id, previous, { title: 'Founder', start: launchYear - rng.int(4, 10), end: launchYear - rng.int(0, 3), past: true });
    addFounderDetails(context, id, launchYear);
  }
}

/** An earlier company that is written before this founder (so the reference holds), or none. */
function earlierCompany(context: GenerationContext, companyId: number): number | undefined {
  const committed = Math.max(0, context.committedBelow - 1);
  const inBatch = companyId - context.batchFrom;
  for (let attempt = 0; attempt < 4 && committed + inBatch > 0; attempt += 1) {
    const index = context.rng.int(0, committed + inBatch - 1);
    const candidate = index < committed ? index + 1 : context.batchFrom + (index - committed);
    if (kindOf(candidate) === 'company') return candidate;
  }
  return undefined;
}

function addRole(
  context: GenerationContext,
  founderId: number,
  entityId: number,
  role: { title: string; start: number; end: number | null; past: boolean },
): void {
  context.counters.founderCompany += 1;
  context.batch.founderCompanies.push({
    id: context.counters.founderCompany,
    founder_id: founderId,
    entity_id: entityId,
    is_founder: true,
    is_past: role.past,
    raw_title: role.title,
    year_start: role.start,
    year_end: role.end,
  });
}

function addFounderDetails(context: GenerationContext, founderId: number, launchYear: number): void {
  const { rng, universe, counters, batch } = context;
  const degrees = universe.universityIds.length === 0 ? 0 : rng.weighted([0, 1, 2], [25, 55, 20]);
  for (let n = 0; n < degrees; n += 1) {
    counters.education += 1;
    const end = launchYear - rng.int(1, 12) + n * 2;
    batch.education.push({
      id: counters.education,
      founder_id: founderId,
      university_id: rng.pick(universe.universityIds),
      degree: rng.pick(DEGREES),
      year_start: end - rng.int(2, 5),
      year_end: end,
      majors: JSON.stringify(rng.chance(0.2) ? [rng.pick(MAJORS), rng.pick(MAJORS)].filter((m, i, all) => all.indexOf(m) === i) : [rng.pick(MAJORS)]),
    });
  }
  const backgrounds = new Set<number>();
  for (let n = rng.int(0, 2); n > 0; n -= 1) backgrounds.add(rng.int(1, BACKGROUNDS.length));
  for (const backgroundId of backgrounds) batch.founderBackgrounds.push({ a: founderId, b: backgroundId });
  if (rng.chance(0.3)) batch.founderTags.push({ a: founderId, b: TAG_ID.technology(rng.int(0, TECHNOLOGIES.length - 1)) });
}

const SOURCES = ['Venture Daily', 'Startup Wire', 'Tech Ledger', 'Funding Post'];

/** A news article for about a quarter of the rounds and for every acquisition. */
export function generateNews(context: GenerationContext, company: EntityDraft, funding: CompanyRounds): void {
  const { rng, counters, batch } = context;
  for (const round of funding.rounds) {
    const acquisition = round.round_type === 'acquisition';
    if (!acquisition && !rng.chance(0.25)) continue;
    counters.news += 1;
    const id = counters.news;
    const amount = round.amount_usd === null ? 'an undisclosed amount' : `$${formatMillions(Number(round.amount_usd))}`;
    const title = acquisition
      ? `${company.row.name} acquired for ${amount}`
      : `${company.row.name} raises ${amount} in ${round.round_type.replaceAll('_', ' ')} funding`;
    batch.news.push({
      id,
      url: `https://news.example.com/articles/${id}-${slugify(company.row.name)}`,
      title,
      summary: `${company.row.name}, based in ${company.row.hq_city}, ${acquisition ? 'was acquired' : `closed a ${round.round_type.replaceAll('_', ' ')} round`}.`,
      source: rng.pick(SOURCES),
      article_type: acquisition ? 'acquisition' : 'funding',
      publish_date: `${round.date}T09:00:00.000Z`,
      amount_usd: round.amount_usd,
      round_type: round.round_type,
      deal_date: round.date,
      sector: company.industry,
      hq_country: company.row.hq_country,
      relevance_score: Math.round(rng.next() * 100) / 100,
      hub_score: Math.round(rng.next() * 100) / 100,
    });
    batch.newsEntities.push({ news_id: id, entity_id: company.row.id, mention_role: 'subject', is_primary: true, sector: company.industry });
    const lead = funding.roundInvestors.find((ri) => ri.round_id === round.id);
    if (lead) batch.newsEntities.push({ news_id: id, entity_id: lead.investor_id, mention_role: 'investor', is_primary: false, sector: '' });
  }
}

function formatMillions(amount: number): string {
  return amount >= 1e9 ? `${(amount / 1e9).toFixed(1)}B` : amount >= 1e6 ? `${(amount / 1e6).toFixed(1)}M` : `${Math.round(amount / 1e3)}K`;
}
