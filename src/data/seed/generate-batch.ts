/** Fills a SeedBatch for a range of entity ids: reference entities in phase 1, companies in phase 2. */
import { SeedBatch } from './batch.ts';
import { generateEntity, generateEntityTags, generateExternalIds } from './generate-entity.ts';
import { generateFounders, generateNews, type GenerationContext } from './generate-people.ts';
import { generateRounds } from './generate-rounds.ts';
import type { Prng } from './prng.ts';
import { kindOf, type IdCounters, type Universe } from './universe.ts';

const DAY_MS = 86_400_000;

/** Investors and universities of [from, to]: written first so every company can point at them. */
export function generateReferenceBatch(rng: Prng, universe: Universe, from: number, to: number): SeedBatch {
  const batch = new SeedBatch();
  for (let id = from; id <= to; id += 1) {
    const kind = kindOf(id);
    if (kind === 'company') continue;
    const draft = generateEntity(rng, universe.seed, id, kind);
    batch.entities.push(draft.row);
    batch.entityTags.push(...generateEntityTags(rng, id, draft.industryIndex));
    batch.externalIds.push(...generateExternalIds(id, draft.row.slug));
    if (kind === 'investor') batch.investorIds.push(id);
  }
  return batch;
}

/** Companies of [from, to] with everything that hangs off them. */
export function generateCompanyBatch(
  rng: Prng,
  universe: Universe,
  counters: IdCounters,
  range: { from: number; to: number; committedBelow: number },
): SeedBatch {
  const batch = new SeedBatch();
  const context: GenerationContext = { rng, universe, counters, batch, committedBelow: range.committedBelow, batchFrom: range.from };
  for (let id = range.from; id <= range.to; id += 1) {
    if (kindOf(id) !== 'company') continue;
    const company = generateEntity(rng, universe.seed, id, 'company');
    const funding = generateRounds(rng, universe, counters, {
      id,
      slug: company.row.slug,
      launchYear: company.launchYear,
    });
    company.row.total_funding_usd = funding.totalFunding.toString();
    company.row.is_unicorn = funding.isUnicorn;
    // About 1% of companies are soft-deleted, as a client syncing deletions would see them.
    if (rng.chance(0.01)) company.row.deleted_at = new Date(Date.parse(company.updatedAt) + 30 * DAY_MS).toISOString();
    batch.entities.push(company.row);
    batch.entityTags.push(...generateEntityTags(rng, id, company.industryIndex));
    batch.externalIds.push(...generateExternalIds(id, company.row.slug));
    batch.rounds.push(...funding.rounds);
    batch.roundInvestors.push(...funding.roundInvestors);
    batch.valuations.push(...funding.valuations);
    generateFounders(context, company, funding);
    generateNews(context, company, funding);
  }
  return batch;
}
