/** Entity rows: companies, investors and universities, placed in a real city with its coordinates. */
import { domainOf } from '../../identifiers/domain.ts';
import { slugify, uuidV5 } from '../ids.ts';
import type { Prng } from './prng.ts';
import {
  BUSINESS_MODELS,
  INDUSTRIES,
  INVESTOR_SUFFIXES,
  LAST_NAMES,
  NAME_ENDS,
  NAME_STARTS,
  NAME_SUFFIXES,
  PROGRAMS,
  TAG_ID,
  TECHNOLOGIES,
} from './reference-data.ts';
import type { EntityRow, ExternalIdRow, PairRow } from './rows.ts';
import { PLACE_WEIGHTS, PLACES, type PlacedCity, type SeedKind } from './universe.ts';

/** Records are "created" one every few minutes from 2023 on, in id order. */
const CREATED_FROM = Date.UTC(2023, 0, 1);
const DAY_MS = 86_400_000;

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

export function createdAt(id: number): number {
  return CREATED_FROM + id * 180_000;
}

function companyName(rng: Prng): string {
  const end = rng.pick(NAME_ENDS);
  return `${rng.pick(NAME_STARTS)}${end === 'AI' ? ' AI' : end}${rng.pick(NAME_SUFFIXES)}`;
}

function investorName(rng: Prng): string {
  const place = rng.pick(['', '', ' Bay', ' Point', ' Ridge', ' Square']);
  return `${rng.pick([...NAME_STARTS, ...LAST_NAMES])}${place} ${rng.pick(INVESTOR_SUFFIXES)}`;
}

function universityName(rng: Prng, place: PlacedCity): string {
  const city = place.city.name;
  return rng.pick([
    `University of ${city}`,
    `${city} Institute of Technology`,
    `${rng.pick(LAST_NAMES)} University`,
    `${city} School of Business`,
  ]);
}

export interface EntityDraft {
  row: EntityRow;
  place: PlacedCity;
  industryIndex: number;
  industry: string;
  /** The row's launch year and last update, which the company's rounds, founders and news follow. */
  launchYear: number;
  updatedAt: string;
}

export function generateEntity(rng: Prng, seed: number, id: number, kind: SeedKind): EntityDraft {
  const place = rng.weighted(PLACES, PLACE_WEIGHTS);
  const industryIndex = rng.int(0, INDUSTRIES.length - 1);
  const industry = INDUSTRIES[industryIndex] ?? 'Other';
  const name = kind === 'company' ? companyName(rng) : kind === 'investor' ? investorName(rng) : universityName(rng, place);
  const slug = `${slugify(name)}-${id}`;
  const launchYear = kind === 'university' ? rng.int(1850, 1990) : 2025 - Math.floor(rng.next() ** 1.6 * 30);
  const created = createdAt(id);
  const row = {
    id,
    uuid: uuidV5(`seed:${seed}:entity:${id}`),
    slug,
    type: kind,
    is_company: kind === 'company',
    is_investor: kind === 'investor',
    is_university: kind === 'university',
    name,
    tagline: kind === 'company' ? tagline(rng, industry) : '',
    image: `https://images.example.com/entities/${id}.png`,
    platform_url: `https://platform.example.com/${kind === 'investor' ? 'investors' : 'companies'}/${slug}`,
    ...websiteOf(id, slug),
    launch_year: launchYear,
    hq_country: place.country.name,
    hq_city: place.city.name,
    country_location_id: place.countryId,
    city_location_id: place.cityId,
    lat: Math.round((place.city.lat + (rng.next() - 0.5) * 0.2) * 1e5) / 1e5,
    lon: Math.round((place.city.lon + (rng.next() - 0.5) * 0.2) * 1e5) / 1e5,
    total_funding_usd: '0',
    is_unicorn: false,
    created_at: isoAt(created),
    updated_at: isoAt(created + rng.int(0, 400) * DAY_MS),
    deleted_at: null,
  } satisfies EntityRow;
  return { row, place, industryIndex, industry, launchYear, updatedAt: row.updated_at };
}

/**
 * Nine entities in ten have a website, unique by its id (`https://www.nova-labs-12.com`, some without
 * `www.` or with a path, as sources write them). Derived from the id, not the random stream, so adding
 * identifiers left every other seeded value as it was.
 */
function websiteOf(id: number, slug: string): Pick<EntityRow, 'website' | 'website_domain'> {
  if (id % 10 === 0) return { website: '', website_domain: '' };
  const website = id % 3 === 0 ? `https://${slug}.com/about` : `https://www.${slug}.com`;
  return { website, website_domain: domainOf(website) };
}

/** Every second entity has a CrunchBase permalink, every fifth a Wikidata id (both unique by id). */
export function generateExternalIds(entityId: number, slug: string): ExternalIdRow[] {
  const rows: ExternalIdRow[] = [];
  if (entityId % 2 === 0) rows.push({ entity_id: entityId, source: 'crunchbase', external_id: slug });
  if (entityId % 5 === 0) rows.push({ entity_id: entityId, source: 'wikidata', external_id: `Q${100_000 + entityId}` });
  return rows;
}

function tagline(rng: Prng, industry: string): string {
  const what = rng.pick(['platform', 'software', 'marketplace', 'network', 'tools', 'infrastructure', 'app']);
  const who = rng.pick(['small businesses', 'hospitals', 'developers', 'retailers', 'farmers', 'banks', 'teams', 'families']);
  return `${rng.pick(['Modern', 'Open', 'AI-driven', 'Simple', 'Secure', 'Fast'])} ${industry.toLowerCase()} ${what} for ${who}`;
}

/** One industry, maybe technologies, a business model and (rarely) an accelerator program. */
export function generateEntityTags(rng: Prng, entityId: number, industryIndex: number): PairRow[] {
  const tags = new Set<number>([TAG_ID.industry(industryIndex)]);
  for (let n = rng.int(0, 2); n > 0; n -= 1) tags.add(TAG_ID.technology(rng.int(0, TECHNOLOGIES.length - 1)));
  if (rng.chance(0.6)) tags.add(TAG_ID.businessModel(rng.int(0, BUSINESS_MODELS.length - 1)));
  if (rng.chance(0.05)) tags.add(TAG_ID.program(rng.int(0, PROGRAMS.length - 1)));
  return [...tags].map((tagId) => ({ a: entityId, b: tagId }));
}
