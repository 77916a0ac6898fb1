/**
 * Rows the seeder writes. A table's row is typed from its model in the data model (ColumnRow), and the
 * writes take their columns from it too (src/data/sql/unnest.ts): only the shapes the data model does
 * not give (education's majors as JSON text, link pairs) are written here.
 */
import type { ColumnRow } from '../sql/column-row.ts';

export type EntityRow = ColumnRow<'Entity'>;
export type FounderRow = ColumnRow<'Founder'>;
export type RoundRow = ColumnRow<'FundingRound'>;
export type RoundInvestorRow = ColumnRow<'RoundInvestor'>;
export type ValuationRow = ColumnRow<'Valuation'>;
export type FounderCompanyRow = ColumnRow<'FounderCompany'>;
export type NewsRow = ColumnRow<'NewsArticle'>;
export type NewsEntityRow = ColumnRow<'NewsEntity'>;
export type ExternalIdRow = ColumnRow<'EntityExternalId'>;

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

export interface PairRow {
  a: number;
  b: number;
}
