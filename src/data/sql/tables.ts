/**
 * Rows of the tables that both bulk writers fill, the importer and the seeder, with each column's
 * PostgreSQL element type for `unnest`. Nullable where either writer may leave a value to its default.
 */
import type { Column } from './unnest.ts';

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
  location_country_id: number | null;
  created_at: string | null;
  updated_at: string | null;
}

export const FOUNDER_COLUMNS: Column<FounderRow>[] = [
  { name: 'id', type: 'int' },
  { name: 'uuid', type: 'uuid' },
  { name: 'slug', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'tagline', type: 'text' },
  { name: 'image', type: 'text' },
  { name: 'platform_url', type: 'text' },
  { name: 'gender', type: 'text' },
  { name: 'is_serial_founder', type: 'bool' },
  { name: 'is_super_founder', type: 'bool' },
  { name: 'is_promising_founder', type: 'bool' },
  { name: 'is_strong_founder', type: 'bool' },
  { name: 'launch_year', type: 'int' },
  { name: 'hq_country', type: 'text' },
  { name: 'hq_city', type: 'text' },
  { name: 'location_country_id', type: 'int' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'updated_at', type: 'timestamptz' },
];

export interface RoundRow {
  id: number;
  slug: string;
  entity_id: number;
  round_type: string;
  /** Whole dollars as decimal text: BigInt travels as text. */
  amount_usd: string | null;
  currency: string;
  date: string;
  valuation_usd: string | null;
  source_url: string;
  created_at: string | null;
}

export const ROUND_COLUMNS: Column<RoundRow>[] = [
  { name: 'id', type: 'int' },
  { name: 'slug', type: 'text' },
  { name: 'entity_id', type: 'int' },
  { name: 'round_type', type: 'text' },
  { name: 'amount_usd', type: 'bigint' },
  { name: 'currency', type: 'text' },
  { name: 'date', type: 'date' },
  { name: 'valuation_usd', type: 'bigint' },
  { name: 'source_url', type: 'text' },
  { name: 'created_at', type: 'timestamptz' },
];

export interface RoundInvestorRow {
  round_id: number;
  investor_id: number;
  is_lead: boolean;
}

export const ROUND_INVESTOR_COLUMNS: Column<RoundInvestorRow>[] = [
  { name: 'round_id', type: 'int' },
  { name: 'investor_id', type: 'int' },
  { name: 'is_lead', type: 'bool' },
];

export interface ValuationRow {
  id: number;
  slug: string;
  entity_id: number;
  valuation_usd: string | null;
  date: string;
  source: string;
  transaction_id: number | null;
}

export const VALUATION_COLUMNS: Column<ValuationRow>[] = [
  { name: 'id', type: 'int' },
  { name: 'slug', type: 'text' },
  { name: 'entity_id', type: 'int' },
  { name: 'valuation_usd', type: 'bigint' },
  { name: 'date', type: 'date' },
  { name: 'source', type: 'text' },
  { name: 'transaction_id', type: 'int' },
];
