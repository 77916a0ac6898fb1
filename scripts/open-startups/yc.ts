/**
 * Alice Corona's "Y Combinator" data (CC-BY-SA 4.0): 688 startups of the 2005-2014 batches and their
 * founders. Startups join the CrunchBase entity they link to (or match by unique name) and get the
 * `program` tag "Y Combinator". Their investors are free text without rounds or dates, so they become
 * investor entities and profiles only; the one round we can state honestly is Y Combinator's own
 * investment at the batch (dated at the batch start, amount unknown), with Y Combinator as lead.
 */
import { join } from 'node:path';
import { canonicalCountryName } from '../../src/data/countries.ts';
import { slugify } from '../../src/data/ids.ts';
import { clean, cleanName, parseAmount, parseYear, readCsv, splitList, type CsvRow } from './clean.ts';
import { platformUrl } from './crunchbase.ts';
import { cleanWebsite, type Dataset, type EntityDraft } from './dataset.ts';

const PROGRAM = 'Y Combinator';
/** Batches start in January (Winter) and June (Summer). */
const BATCH_MONTH: Record<string, string> = { Winter: '01', Summer: '06' };

function profileSlug(url: string): string {
  return /crunchbase\.com\/organization\/([^/?#]+)/.exec(url)?.[1] ?? '';
}

function addStartup(dataset: Dataset, row: CsvRow): EntityDraft {
  const profile = clean(row['Crunchbase / Angel List Profile']);
  const slug = profileSlug(profile);
  const name = cleanName(row.Company, slug);
  const known = (slug && dataset.entity(`crunchbase:${slug}`)) || dataset.entityNamed(name);
  const fields = {
    name,
    tagline: clean(row.Description),
    image: clean(row.Logo),
    platform_url: slug ? platformUrl(slug) : profile,
    website: cleanWebsite(row.Website),
    launch_year: parseYear(row['Year Founded']),
    hq_country: canonicalCountryName(clean(row['Headquarters (Country)'])) ?? '',
    hq_city: clean(row['Headquarters (City)']),
  };
  const tags = [
    dataset.tag(PROGRAM, 'program'),
    ...splitList(row.Categories).map((category) => dataset.tag(category, 'industry')),
  ];
  const entity = known
    ? dataset.fill(known, fields, tags)
    : dataset.upsertEntity(slug ? `crunchbase:${slug}` : `yc:${slugify(name)}`, slug, fields, tags);
  if (slug) dataset.addExternalId(entity, 'crunchbase', slug);
  dataset.alias(`yc:${name.toLowerCase()}`, entity);
  return entity;
}

function investorEntity(dataset: Dataset, name: string): EntityDraft {
  const entity =
    dataset.entity(`yc-investor:${slugify(name)}`) ??
    dataset.entityNamed(name) ??
    dataset.upsertEntity(`yc-investor:${slugify(name)}`, slugify(name), { name, type: 'investor' });
  dataset.markInvestor(entity.id);
  return entity;
}

export function addYCombinator(
  dataset: Dataset,
  dir: string,
): { startups: number; founders: number; roundsWithInvestors: number } {
  const startups = readCsv(join(dir, 'Startups.csv'));
  const yc = investorEntity(dataset, PROGRAM);
  let roundsWithInvestors = 0;
  for (const row of startups) {
    const entity = addStartup(dataset, row);
    const investors = splitList(row.Investors).map((name) => investorEntity(dataset, name));
    if (attachInvestors(dataset, entity, row, investors.filter((investor) => investor !== yc))) roundsWithInvestors += 1;
    const year = parseYear(row['Y Combinator Year']);
    const month = BATCH_MONTH[clean(row['Y Combinator Session'])];
    if (year && month) {
      dataset.addTransaction(`${entity.slug}-yc-${year}-${month === '01' ? 'winter' : 'summer'}`, {
        entity_id: entity.id,
        round_type: 'seed',
        amount_usd: null,
        date: `${year}-${month}-01`,
        investors: [{ id: yc.id, is_lead: true }],
        source_url: clean(row['Seed-DB / Mattermark Profile']),
      });
    }
  }
  return { startups: startups.length, founders: addFounders(dataset, dir, startups), roundsWithInvestors };
}

/**
 * The one case where YC's free-text investors can be placed in a round honestly: the startup lists
 * exactly one amount raised, and CrunchBase has exactly one round of that amount (within 5%) for it,
 * without investors. Then that round is the raise, and its investors are the ones listed (YC's own
 * money is the batch round). Returns whether it attached them.
 */
function attachInvestors(dataset: Dataset, entity: EntityDraft, row: CsvRow, investors: EntityDraft[]): boolean {
  const raised = clean(row['Amounts raised in different funding rounds']).split(/,\s+/).filter(Boolean);
  const amount = raised.length === 1 ? parseAmount(raised[0]) : null;
  if (amount === null || investors.length === 0) return false;
  const rounds = dataset.transactions.filter(
    (round) =>
      round.entity_id === entity.id &&
      round.round_type !== 'acquisition' &&
      round.investors.length === 0 &&
      round.amount_usd !== null &&
      Math.abs(round.amount_usd - amount) <= amount * 0.05,
  );
  const [round] = rounds;
  if (!round || rounds.length > 1) return false;
  const ids = [...new Set(investors.map((investor) => investor.id))];
  round.investors = ids.map((id) => ({ id, is_lead: false }));
  return true;
}

/** Founders.csv gives names, companies and gender; Startups.csv names a few founders it lacks. */
function addFounders(dataset: Dataset, dir: string, startups: CsvRow[]): number {
  const companiesOf = new Map<string, Set<number>>();
  const genderOf = new Map<string, string>();
  const link = (founder: string, company: string) => {
    const entity = dataset.entity(`yc:${company.toLowerCase()}`);
    if (!entity) return;
    companiesOf.set(founder, (companiesOf.get(founder) ?? new Set()).add(entity.id));
  };
  for (const row of readCsv(join(dir, 'Founders.csv'))) {
    const name = clean(row.Founder);
    if (!name) continue;
    genderOf.set(name, clean(row.Gender).toLowerCase());
    for (const company of splitList(row.Company)) link(name, company);
  }
  for (const row of startups) for (const founder of splitList(row.Founders)) link(founder, clean(row.Company));
  for (const [name, companies] of companiesOf) {
    dataset.addFounder(`yc-founder:${name.toLowerCase()}`, name, genderOf.get(name) ?? '', [...companies].sort((a, b) => a - b));
  }
  return companiesOf.size;
}
