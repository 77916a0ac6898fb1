/**
 * CrunchBase's October 2013 export (CC-BY): companies → entities, rounds → transactions, acquisitions →
 * transactions of type `acquisition` whose one (lead) investor is the acquirer. Every company of the
 * 2013 files is in the United States; acquirers abroad carry an ISO alpha-3 code.
 */
import { join } from 'node:path';
import { countryNameFromAlpha3 } from '../../src/data/countries.ts';
import { categoryName, clean, cleanName, isoDate, parseAmount, parseYear, readCsv, type CsvRow } from './clean.ts';
import type { Dataset, EntityDraft } from './dataset.ts';

const ROUND_TYPES: Record<string, string> = {
  angel: 'angel',
  venture: 'venture',
  'series-a': 'series_a',
  'series-b': 'series_b',
  // "C or later" in the 2013 export; later letters are not distinguished there.
  'series-c+': 'series_c',
  'private-equity': 'private_equity',
  'post-ipo': 'post_ipo',
  crowdfunding: 'crowdfunding',
  other: 'other',
};

export function platformUrl(slug: string): string {
  return `https://www.crunchbase.com/organization/${slug}`;
}

/** `/company/airbnb` → `airbnb` */
function slugOf(permalink: string): string {
  return permalink.split('/').filter(Boolean).at(-1) ?? '';
}

/** Adds the company a CSV row describes under one of its column prefixes ('' or 'company_' or 'acquirer_'). */
function addCompany(dataset: Dataset, row: CsvRow, prefix: string): EntityDraft | undefined {
  const permalink = row[`${prefix}permalink`] ?? '';
  const slug = slugOf(permalink);
  if (!slug) return undefined;
  const category = clean(row[`${prefix}category_code`]);
  return dataset.upsertEntity(
    `crunchbase:${slug}`,
    slug,
    {
      type: 'company',
      name: cleanName(row[`${prefix}name`], slug),
      platform_url: platformUrl(slug),
      launch_year: prefix === '' ? parseYear(row.founded_year) : null,
      hq_country: countryNameFromAlpha3(row[`${prefix}country_code`] ?? '') ?? '',
      hq_city: clean(row[`${prefix}city`]),
    },
    category ? [dataset.tag(categoryName(category), 'industry')] : [],
  );
}

export function addCrunchbase(dataset: Dataset, dir: string): { skippedRounds: number; skippedAcquisitions: number } {
  for (const row of readCsv(join(dir, 'crunchbase-companies.csv'))) addCompany(dataset, row, '');
  const acquisitions = readCsv(join(dir, 'crunchbase-acquisitions.csv'));
  for (const row of acquisitions) {
    addCompany(dataset, row, 'company_');
    addCompany(dataset, row, 'acquirer_');
  }
  return { skippedRounds: addRounds(dataset, dir), skippedAcquisitions: addAcquisitions(dataset, acquisitions) };
}

function addRounds(dataset: Dataset, dir: string): number {
  let skipped = 0;
  for (const row of readCsv(join(dir, 'crunchbase-rounds.csv'))) {
    const entity = dataset.entity(`crunchbase:${slugOf(row.company_permalink ?? '')}`);
    const date = isoDate(row.funded_at);
    const roundType = ROUND_TYPES[clean(row.funding_round_type)];
    if (!entity || !date || !roundType) {
      skipped += 1;
      continue;
    }
    dataset.addTransaction(`${entity.slug}-${roundType.replaceAll('_', '-')}-${date}`, {
      entity_id: entity.id,
      round_type: roundType,
      amount_usd: parseAmount(row.raised_amount_usd),
      date,
      investors: [],
    });
  }
  return skipped;
}

function addAcquisitions(dataset: Dataset, rows: CsvRow[]): number {
  let skipped = 0;
  const seen = new Set<string>();
  for (const row of rows) {
    const acquired = dataset.entity(`crunchbase:${slugOf(row.company_permalink ?? '')}`);
    const acquirer = dataset.entity(`crunchbase:${slugOf(row.acquirer_permalink ?? '')}`);
    const date = isoDate(row.acquired_at);
    const key = `${acquired?.id}:${acquirer?.id}:${date}`;
    // Rows without companies are blank lines of the export; a company "acquiring itself" is a data error.
    if (!acquired || !acquirer || !date || acquired === acquirer || seen.has(key)) {
      skipped += 1;
      continue;
    }
    seen.add(key);
    const currency = clean(row.price_currency_code) || 'USD';
    dataset.addTransaction(`${acquired.slug}-acquisition-${date}`, {
      entity_id: acquired.id,
      round_type: 'acquisition',
      // Prices in other currencies are kept out of amount_usd rather than converted at a guessed rate.
      amount_usd: currency === 'USD' ? parseAmount(row.price_amount) : null,
      currency,
      date,
      investors: [{ id: acquirer.id, is_lead: true }],
    });
  }
  return skipped;
}
