/**
 * Alice Corona's "Y Combinator" data (CC-BY-SA 4.0): 688 startups of the 2005-2014 batches and their
 * founders. Startups join the CrunchBase entity they link to (or match by unique name) and get the
 * `program` tag "Y Combinator". Their investors are free text without rounds or dates, so they become
 * investor entities and profiles only; the one round we can state honestly is Y Combinator's own
 * investment at the batch (dated at the batch start, amount unknown), with Y Combinator as lead.
 */
import { join } from 'node:path';
import { canonicalCountryName } from '../countries.ts';
import { slugify } from '../ids.ts';
import { clean, cleanName, parseYear, readCsv, splitList, type CsvRow } from './clean.ts';
import { platformUrl } from './crunchbase.ts';
import type { Dataset, EntityDraft } from './dataset.ts';

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

export function addYCombinator(dataset: Dataset, dir: string): { startups: number; founders: number } {
  const startups = readCsv(join(dir, 'Startups.csv'));
  const yc = investorEntity(dataset, PROGRAM);
  for (const row of startups) {
    const entity = addStartup(dataset, row);
    for (const investor of splitList(row.Investors)) investorEntity(dataset, investor);
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
  return { startups: startups.length, founders: addFounders(dataset, dir, startups) };
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
