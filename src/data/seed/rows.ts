/** Rows the seeder writes, one interface and column list per table (all columns explicit). */
import type { Column } from '../sql/unnest.ts';

// Tables the importer writes too are declared once, beside it.
export {
  FOUNDER_COLUMNS,
  ROUND_COLUMNS,
  ROUND_INVESTOR_COLUMNS,
  VALUATION_COLUMNS,
  type FounderRow,
  type RoundInvestorRow,
  type RoundRow,
  type ValuationRow,
} from '../sql/tables.ts';

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
  website: string;
  website_domain: string;
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

export interface ExternalIdRow {
  entity_id: number;
  source: string;
  external_id: string;
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
  name: text, tagline: text, image: text, platform_url: text, website: text, website_domain: text, launch_year: int, hq_country: text, hq_city: text,
  country_location_id: int, city_location_id: int, lat: 'float8', lon: 'float8', total_funding_usd: 'bigint',
  is_unicorn: bool, created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
});

export const FOUNDER_COMPANY_COLUMNS = columns<FounderCompanyRow>({
  id: int, founder_id: int, entity_id: int, is_founder: bool, is_past: bool, raw_title: text, year_start: int,
  year_end: int,
});

export const NEWS_COLUMNS = columns<NewsRow>({
  id: int, url: text, title: text, summary: text, source: text, article_type: text, publish_date: 'timestamptz',
  amount_usd: 'numeric', round_type: text, deal_date: 'date', sector: text, hq_country: text,
  relevance_score: 'float8', hub_score: 'float8',
});

export const NEWS_ENTITY_COLUMNS = columns<NewsEntityRow>({
  news_id: int, entity_id: int, mention_role: text, is_primary: bool, sector: text,
});

export const EXTERNAL_ID_COLUMNS = columns<ExternalIdRow>({ entity_id: int, source: text, external_id: text });
