/**
 * The evaluation set of matching (docs/finding-companies.md, "Measured quality"), generated from the
 * demo data with a fixed seed, so that it is the same on every run and on both databases: the demo
 * data's companies written the ways a CRM holds them (name and country, a legal form, other case or
 * spacing, a typo of every sort, a website, an external id, the name alone) and made-up names that
 * are not there (rare nonsense words with common ones, common words only). Each case belongs to one
 * of two fixed parts: `tuning` (what the model's parameters are estimated from) and `held-out` (what
 * the figures are measured on); a company's cases are all in one part.
 */
import type { SqlClient } from '../../src/db/client.ts';

export type Part = 'tuning' | 'held-out';
export interface MatchCase {
  kind: string;
  /** The entity the record is, or null for a made-up name. */
  expected: number | null;
  record: Record<string, unknown>;
  part: Part;
}

interface Company {
  id: number;
  name: string;
  website: string;
  hq_country: string;
  hq_city: string;
  launch_year: number | null;
  crunchbase: string | null;
}

export const KINDS = ['name + country', 'legal form', 'case or spacing', 'typo', 'website', 'external id', 'name only'] as const;
export const MADE_UP = 'made-up name';

/** A small deterministic generator (a linear congruential one), so the cases are the same on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SUFFIXES = [', Inc.', ' Inc', ' Ltd', ' Ltd.', ' GmbH', ' LLC', ' Corp.', ' Corporation', ' S.A.', ' PLC', ' Limited', ' B.V.', ' AG', ' Co.'];
const KEYBOARD = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const SYLLABLES = ['qua', 'zor', 'vex', 'lum', 'tri', 'nox', 'bel', 'kra', 'dyn', 'pho', 'xil', 'mur', 'ulo', 'kesh', 'plim', 'zan', 'oru', 'fen', 'gry', 'tav'];

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length)]!;
}

/** A letter next to `letter` on a keyboard (itself when it has no row). */
function neighbour(letter: string, random: () => number): string {
  const lower = letter.toLowerCase();
  const row = KEYBOARD.find((keys) => keys.includes(lower));
  if (!row) return letter;
  const at = row.indexOf(lower);
  const next = row[at === 0 ? 1 : at === row.length - 1 ? at - 1 : at + (random() < 0.5 ? -1 : 1)]!;
  return letter === lower ? next : next.toUpperCase();
}

/** One typo of one of the sorts people make, at a letter anywhere in the name. */
export function typo(name: string, random: () => number): string {
  const letters = [...name.matchAll(/\p{L}/gu)].map((match) => match.index!);
  const at = pick(letters, random);
  const sort = Math.floor(random() * 5);
  if (sort === 0 && /\p{L}/u.test(name[at + 1] ?? '')) return name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2); // swapped
  if (sort === 1 && letters.length > 4) return name.slice(0, at) + name.slice(at + 1); // missing
  if (sort === 2) return name.slice(0, at) + name[at] + name.slice(at); // doubled
  if (sort === 3) return name.slice(0, at) + neighbour(name[at]!, random) + name.slice(at); // an extra key
  return name.slice(0, at) + neighbour(name[at]!, random) + name.slice(at + 1); // the key beside
}

/** The name in other case or spacing: upper or lower case, words run together or split, spaces doubled. */
function caseOrSpacing(name: string, random: () => number): string {
  const words = name.split(' ');
  const camel = name.search(/\p{Ll}\p{Lu}/u);
  switch (Math.floor(random() * 5)) {
    case 0: return name.toUpperCase();
    case 1: return name.toLowerCase();
    case 2: if (words.length > 1) return words.join(''); break;
    case 3: if (camel > 0) return `${name.slice(0, camel + 1)} ${name.slice(camel + 1)}`; break;
    default: break;
  }
  return `  ${words.join('  ')} `;
}

function website(url: string, random: () => number): string {
  const host = new URL(url.includes('://') ? url : `http://${url}`).hostname.replace(/^www\./, '');
  return pick([host, `www.${host}`, `https://www.${host}/about?utm_source=crm`, `http://${host.toUpperCase()}/`, `info@${host}`], random);
}

function recordOf(kind: string, company: Company, random: () => number): Record<string, unknown> | null {
  const where = { hq_country: company.hq_country };
  switch (kind) {
    case 'name + country': return { name: company.name, ...where, ...cityAndYear(company, random) };
    case 'legal form': return { name: `${random() < 0.5 ? company.name.toUpperCase() : company.name}${pick(SUFFIXES, random)}`, ...where };
    case 'case or spacing': return { name: caseOrSpacing(company.name, random), ...where };
    case 'typo': return { name: typo(company.name, random), ...where };
    case 'website': return company.website ? { name: company.name, website: website(company.website, random) } : null;
    case 'external id': return company.crunchbase ? { name: company.name, external_id: `crunchbase:${company.crunchbase}` } : null;
    default: return { name: company.name };
  }
}

/** What a CRM often adds: the city (now and then another one: companies move) and the launch year (now and then a year off). */
function cityAndYear(company: Company, random: () => number): Record<string, unknown> {
  const more: Record<string, unknown> = {};
  if (company.hq_city && random() < 0.5) more.hq_city = random() < 0.1 ? 'Chicago' : company.hq_city;
  if (company.launch_year && random() < 0.5) more.launch_year = company.launch_year + (random() < 0.2 ? 1 : 0);
  return more;
}

const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);

/**
 * Made-up names: a nonsense word with a common word of the data (`Vexulozor Labs`), two nonsense
 * words, common words only, or a rarer word of the data with a common one (`Cortex Systems`, when no
 * company is called that: it shares a word with some).
 */
function madeUp(words: { common: readonly string[]; rare: readonly string[] }, random: () => number): string {
  const nonsense = () => capital(Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(SYLLABLES, random)).join(''));
  const usual = () => capital(pick(words.common, random));
  switch (Math.floor(random() * 4)) {
    case 0: return `${nonsense()} ${usual()}`;
    case 1: return `${nonsense()} ${nonsense()}`;
    case 2: return `${usual()} ${usual()} ${usual()}`;
    default: return `${capital(pick(words.rare, random))} ${usual()}`;
  }
}

const partOf = (id: number): Part => ((Math.imul(id, 2654435761) >>> 0) % 5 < 2 ? 'held-out' : 'tuning');

/** The evaluation set of the database's data: `companies` companies' cases, and `madeUp` made-up names. */
export async function matchCases(sql: Pick<SqlClient, 'query'>, companies = 1400, madeUpNames = 300): Promise<MatchCase[]> {
  // Companies with a website are few (1 in 15 of the demo data): the website kind draws from them.
  const sample = (withWebsite: boolean, limit: number) => sql.query<Company>(
    `SELECT e.id, e.name, e.website, e.hq_country, e.hq_city, e.launch_year,
            (SELECT x.external_id FROM entity_external_ids x WHERE x.entity_id = e.id AND x.source = 'crunchbase' ORDER BY x.external_id LIMIT 1) AS crunchbase
       FROM entities e WHERE e.type = 'company' AND e.deleted_at IS NULL AND length(e.search_name) >= 5 AND e.hq_country <> ''
        AND (e.website <> '') = $2
      ORDER BY md5(e.id::text) LIMIT $1`,
    [limit, withWebsite],
  );
  // Typos twice as often as the other kinds: the hardest kind, and the one with most sorts.
  const kinds = [...KINDS, 'typo'];
  const withWebsite = await sample(true, Math.ceil(companies / kinds.length));
  const others = await sample(false, companies - withWebsite.length);
  const random = prng(44);
  const cases: MatchCase[] = [];
  for (let index = 0; index < companies; index += 1) {
    const kind = kinds[index % kinds.length]!;
    const company = (kind === 'website' ? withWebsite : others).shift();
    if (!company) break;
    const record = recordOf(kind, company, random);
    const part = partOf(company.id);
    // A company without a website or id is written by its name alone.
    cases.push(record ? { kind, expected: company.id, record, part } : { kind: 'name only', expected: company.id, record: { name: company.name }, part });
  }
  const words = async (order: string) => (await sql.query<{ word: string }>(
    `SELECT word FROM entity_name_word_counts WHERE length(word) >= 5 AND word ~ '^[a-z]+$' ${order}`,
  )).map((row) => row.word);
  const common = await words('ORDER BY entities DESC, word LIMIT 40');
  const rare = await words('AND entities BETWEEN 2 AND 20 ORDER BY md5(word) LIMIT 400');
  const names = Array.from({ length: madeUpNames * 2 }, () => madeUp({ common, rare }, random));
  // Only names that are not there: no entity of that name, nor one edit from it.
  const absent = await sql.query<{ name: string }>(
    `SELECT n.name FROM unnest($1::text[]) WITH ORDINALITY n(name, i)
      WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE (e.search_name COLLATE "C") = search_text(n.name))
        AND NOT EXISTS (SELECT 1 FROM match_name_variants(search_text(n.name)) v JOIN entity_name_variants l ON l.variant = v)
      ORDER BY n.i`,
    [names],
  );
  for (const [index, { name }] of absent.slice(0, madeUpNames).entries()) {
    cases.push({ kind: MADE_UP, expected: null, record: { name, hq_country: 'United States' }, part: partOf(index + 1) });
  }
  return cases;
}
