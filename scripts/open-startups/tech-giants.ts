/**
 * Alice Corona's "Tech Giants Acquisitions" (CC-BY-SA 4.0): 1,643 acquisitions by 36 large companies,
 * most with a news headline and link. Each headline becomes a news article of type `acquisition` naming
 * acquirer and acquired; each deal also becomes an acquisition transaction unless the 2013 CrunchBase
 * files already hold the same pair.
 */
import { join } from 'node:path';
import { slugify } from '../../src/data/ids.ts';
import { canonicalCountryName } from '../../src/data/countries.ts';
import {
  clean,
  cleanName,
  hostOf,
  parseAmount,
  parseDayMonthYear,
  parseStatedAmount,
  parseYear,
  readCsv,
  splitList,
  type CsvRow,
} from './clean.ts';
import { platformUrl } from './crunchbase.ts';
import { cleanWebsite, type Dataset, type EntityDraft } from './dataset.ts';

/** The acquirers' names in this file → their CrunchBase permalinks, where the name alone does not match. */
const ACQUIRER_SLUGS: Record<string, string> = {
  Adobe: 'adobe-systems',
  'Cisco Systems': 'cisco',
  HP: 'hewlett-packard',
  Oracle: 'oracle',
  Yahoo: 'yahoo',
  'Verizon Communications': 'verizon',
  HERE: 'here',
};

function profileSlug(url: string | undefined): string {
  return /crunchbase\.com\/organization\/([^/?#]+)/.exec(url ?? '')?.[1] ?? '';
}

function addAcquiredCompany(dataset: Dataset, row: CsvRow): EntityDraft {
  const slug = profileSlug(row['CrunchBase Profile']);
  const name = cleanName(row.Company, slug);
  const fields = {
    name,
    platform_url: slug ? platformUrl(slug) : '',
    website: cleanWebsite(row.Homepage),
    tagline: clean(row.Tagline),
    image: clean(row.Image),
    launch_year: parseYear(row['Year Founded']),
    hq_country: canonicalCountryName(clean(row['Country (HQ)'])) ?? '',
    hq_city: clean(row['City (HQ)']),
  };
  const tags = splitList(row['Market Categories']).map((category) => dataset.tag(category, 'industry'));
  return dataset.upsertEntity(slug ? `crunchbase:${slug}` : `tech-giants:${slugify(name)}`, slug, fields, tags);
}

function findOrAdd(dataset: Dataset, name: string, slug: string | undefined): EntityDraft {
  const known = (slug && dataset.entity(`crunchbase:${slug}`)) || dataset.entityNamed(name);
  if (known) return known;
  const key = `tech-giants:${slugify(name)}`;
  return dataset.entity(key) ?? dataset.upsertEntity(key, slugify(name), { name });
}

export function addTechGiants(dataset: Dataset, dir: string): { articles: number; transactions: number } {
  const companies = new Map<string, EntityDraft>();
  for (const row of readCsv(join(dir, 'Acquired Tech Companies.csv'))) {
    companies.set(clean(row['Acquisitions ID']), addAcquiredCompany(dataset, row));
  }
  const acquiredPairs = new Set(
    dataset.transactions.filter((t) => t.round_type === 'acquisition').map((t) => `${t.entity_id}:${t.investors[0]?.id}`),
  );
  let articles = 0;
  let transactions = 0;
  for (const row of readCsv(join(dir, 'Acquisitions.csv'))) {
    const acquirerName = clean(row['Acquiring Company']);
    const acquiredName = clean(row['Acquired Company']);
    const date = parseDayMonthYear(row['Deal announced on'], row['Year of acquisition announcement']);
    if (!acquirerName || !acquiredName || !date) continue;
    const acquirer = findOrAdd(dataset, acquirerName, ACQUIRER_SLUGS[acquirerName]);
    const acquired = companies.get(clean(row['Acquisitions ID'])) ?? findOrAdd(dataset, acquiredName, undefined);
    if (acquirer === acquired) continue;
    const amount = dealAmount(parseAmount(row.Price), parseStatedAmount(row.News));
    const link = clean(row['News Link']);
    if (!acquiredPairs.has(`${acquired.id}:${acquirer.id}`)) {
      acquiredPairs.add(`${acquired.id}:${acquirer.id}`);
      dataset.addTransaction(`${acquired.slug}-acquisition-${date}`, {
        entity_id: acquired.id,
        round_type: 'acquisition',
        amount_usd: amount,
        date,
        investors: [{ id: acquirer.id, is_lead: true }],
        source_url: link,
      });
      transactions += 1;
    }
    if (addArticle(dataset, row, { acquirer, acquired, date, amount, link })) articles += 1;
  }
  return { articles, transactions };
}

/**
 * The deal's price: the Price column, checked against the one amount the headline states. An
 * undisclosed price takes the headline's; a price more than three times the headline's is a typo in
 * the column (Mojang: "$15,000,000,000" beside "Microsoft Has Acquired Minecraft For $2.5 Billion").
 * A lower price stays: headlines often state the total of several deals (AOL's Spinner and Nullsoft).
 */
export function dealAmount(price: number | null, stated: number | null): number | null {
  if (stated === null) return price;
  if (price === null || price > 3 * stated) return stated;
  return price;
}

interface Deal {
  acquirer: EntityDraft;
  acquired: EntityDraft;
  date: string;
  amount: number | null;
  link: string;
}

function addArticle(dataset: Dataset, row: CsvRow, deal: Deal): boolean {
  const title = clean(row.News);
  if (!title || !/^https?:\/\//.test(deal.link)) return false;
  const sector = deal.acquired.tags[0]?.name ?? '';
  dataset.addNews({
    url: deal.link,
    title,
    // The source's own one-line description of the deal ("Adobe Systems acquired Behance in 2012").
    summary: clean(row['Acquisitions ID']),
    source: hostOf(deal.link),
    article_type: 'acquisition',
    publish_date: `${deal.date}T00:00:00Z`,
    amount_usd: deal.amount,
    round_type: 'acquisition',
    deal_date: deal.date,
    sector,
    hq_country: deal.acquired.hq_country,
    entities: [
      { id: deal.acquired.id, mention_role: 'acquired', is_primary: true, sector },
      { id: deal.acquirer.id, mention_role: 'acquirer', is_primary: false },
    ],
  });
  return true;
}
