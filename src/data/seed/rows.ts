/** Rows the seeder writes, one interface and column list per table (all columns explicit). */
import type { Column } from '../sql/unnest.ts';

export interface EntityRow {
  id: number;
  uuid: string;
  slug: string;
  type: string;
  is_company: boolean;
  is_investor: boolean;
  is_university: boolean;
  name: string;
  tagline: string;
  image: string;
  platform_url: string;
  launch_year: number | null;
  hq_country: string;
  hq_city: string;
  country_location_id: number;
  city_location_id: number;
  lat: number;
  lon: number;
  total_funding_usd: string;
  is_unicorn: boolean;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface FounderRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  tagline: string;
  image: string;
  platform_url: string;
  gender: string;
  is_serial_founder: boolean;
  is_super_founder: boolean;
  is_promising_founder: boolean;
  is_strong_founder: boolean;
  launch_year: number | null;
  hq_country: string;
  hq_city: string;
  location_country_id: number;
  created_at: string;
  updated_at: string;
}

export interface FounderCompanyRow {
  id: number;
  founder_id: number;
  entity_id: number;
  is_founder: boolean;
  is_past: boolean;
  raw_title: string;
  year_start: number | null;
  year_end: number | null;
}

export interface EducationRow {
  id: number;
  founder_id: number;
  university_id: number;
  degree: string;
  year_start: number;
  year_end: number;
  /** JSON array text, unpacked in SQL (unnest cannot carry an array per row). */
  majors: string;
}

export interface RoundRow {
  id: number;
  slug: string;
  entity_id: number;
  round_type: string;
  amount_usd: string | null;
  currency: string;
  date: string;
  valuation_usd: string | null;
  source_url: string;
  created_at: string;
}

export interface RoundInvestorRow {
  round_id: number;
  investor_id: number;
  is_lead: boolean;
}

export interface ValuationRow {
  id: number;
  slug: string;
  entity_id: number;
  valuation_usd: string;
  date: string;
  source: string;
  transaction_id: number | null;
}

export interface NewsRow {
  id: number;
  url: string;
  title: string;
  summary: string;
  source: string;
  article_type: string;
  publish_date: string;
  amount_usd: string | null;
  round_type: string;
  deal_date: string | null;
  sector: string;
  hq_country: string;
  relevance_score: number;
  hub_score: number;
}

export interface NewsEntityRow {
  news_id: number;
  entity_id: number;
  mention_role: string;
  is_primary: boolean;
  sector: string;
}

export interface PairRow {
  a: number;
  b: number;
}

type Columns<Row> = Column<Row>[];

const int = 'int';
const text = 'text';
const bool = 'bool';

function columns<Row>(spec: Record<keyof Row & string, string>): Columns<Row> {
  return Object.entries(spec).map(([name, type]) => ({ name, type: type as string })) as Columns<Row>;
}

export const ENTITY_COLUMNS = columns<EntityRow>({
  id: int, uuid: 'uuid', slug: text, type: text, is_company: bool, is_investor: bool, is_university: bool,
  name: text, tagline: text, image: text, platform_url: text, launch_year: int, hq_country: text, hq_city: text,
  country_location_id: int, city_location_id: int, lat: 'float8', lon: 'float8', total_funding_usd: 'bigint',
  is_unicorn: bool, created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
});

export const FOUNDER_COLUMNS = columns<FounderRow>({
  id: int, uuid: 'uuid', slug: text, name: text, tagline: text, image: text, platform_url: text, gender: text,
  is_serial_founder: bool, is_super_founder: bool, is_promising_founder: bool, is_strong_founder: bool,
  launch_year: int, hq_country: text, hq_city: text, location_country_id: int, created_at: 'timestamptz',
  updated_at: 'timestamptz',
});

export const FOUNDER_COMPANY_COLUMNS = columns<FounderCompanyRow>({
  id: int, founder_id: int, entity_id: int, is_founder: bool, is_past: bool, raw_title: text, year_start: int,
  year_end: int,
});

export const ROUND_COLUMNS = columns<RoundRow>({
  id: int, slug: text, entity_id: int, round_type: text, amount_usd: 'bigint', currency: text, date: 'date',
  valuation_usd: 'bigint', source_url: text, created_at: 'timestamptz',
});

export const ROUND_INVESTOR_COLUMNS = columns<RoundInvestorRow>({ round_id: int, investor_id: int, is_lead: bool });

export const VALUATION_COLUMNS = columns<ValuationRow>({
  id: int, slug: text, entity_id: int, valuation_usd: 'bigint', date: 'date', source: text, transaction_id: int,
});

export const NEWS_COLUMNS = columns<NewsRow>({
  id: int, url: text, title: text, summary: text, source: text, article_type: text, publish_date: 'timestamptz',
  amount_usd: 'numeric', round_type: text, deal_date: 'date', sector: text, hq_country: text,
  relevance_score: 'float8', hub_score: 'float8',
});

export const NEWS_ENTITY_COLUMNS = columns<NewsEntityRow>({
  news_id: int, entity_id: int, mention_role: text, is_primary: bool, sector: text,
});
