/**
 * The evaluation set of search (docs/finding-companies.md, "Search: measured quality"), generated from
 * the demo data with a fixed seed, so that it is the same on every run and on both databases: the
 * demo data's companies typed into a search box the ways people type them (the name in lower case,
 * with a legal form, with a typo, a short name with a typo, a word split or words run together, and
 * pasted with fullwidth letters, a soft hyphen, a zero-width space or decomposed accents). Half the
 * companies are among the most funded (what people look up most), half drawn from all. Each case
 * belongs to one of two fixed parts, by company: `tuning` (what the ranking may be tuned on) and
 * `held-out` (what the figures are measured on, 40%).
 */
import type { SqlClient } from '../../src/db/client.ts';
import { prng, typo, type Part } from './match-cases.ts';

export interface SearchCase {
  kind: string;
  q: string;
  /** The entity the query means. */
  expected: number;
  part: Part;
}

interface Company {
  id: number;
  name: string;
}

export const SEARCH_CASE_KINDS = ['name', 'legal form', 'typo', 'short name typo', 'split or joined', 'pasted unicode'] as const;
type Kind = (typeof SEARCH_CASE_KINDS)[number];

const SUFFIXES = [' inc', ', Inc.', ' ltd', ' GmbH', ' LLC', ' corp'];
const pick = <T>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length)]!;

/** Fullwidth forms of ASCII letters and digits (U+FF01..U+FF5E), as an East Asian keyboard types them. */
const fullwidth = (text: string) => text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));

/** A character pasted from a web page or a word processor, inside the name, or the name's accents decomposed. */
function pasted(name: string, random: () => number): string {
  const at = 1 + Math.floor(random() * Math.max(1, name.length - 2));
  switch (Math.floor(random() * 4)) {
    case 0: return fullwidth(name);
    case 1: return `${name.slice(0, at)}\u00ad${name.slice(at)}`; // soft hyphen
    case 2: return `${name.slice(0, at)}${pick(['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff'], random)}${name.slice(at)}`; // zero-width
    default: return /[^\x00-\x7f]/.test(name) ? name.normalize('NFD') : fullwidth(name);
  }
}

/** A word split in two (`micro soft`), or the words run together (`dropboxbusiness`). */
function splitOrJoined(name: string, random: () => number): string | null {
  const words = name.split(' ');
  if (words.length > 1 && random() < 0.4) return words.join('');
  const long = words.map((word, index) => ({ word, index })).filter(({ word }) => /^\p{L}{6,}$/u.test(word));
  if (!long.length) return words.length > 1 ? words.join('') : null;
  const { word, index } = pick(long, random);
  const camel = word.slice(1).search(/\p{Lu}/u);
  const at = camel > 0 ? camel + 1 : 3 + Math.floor(random() * (word.length - 5));
  words[index] = `${word.slice(0, at)} ${word.slice(at)}`;
  return words.join(' ');
}

function queryOf(kind: Kind, name: string, random: () => number): string | null {
  switch (kind) {
    case 'name': return name.toLowerCase();
    case 'legal form': return `${name}${pick(SUFFIXES, random)}`;
    case 'typo': case 'short name typo': return typo(name, random).toLowerCase();
    case 'split or joined': return splitOrJoined(name, random);
    default: return pasted(name, random);
  }
}

const partOf = (id: number): Part => ((Math.imul(id, 2654435761) >>> 0) % 5 < 2 ? 'held-out' : 'tuning');

/**
 * `perKind` cases of each kind. A company qualifies when no other live entity has its normalised
 * name; a query is left out when it normalises to another entity's name (it is that name).
 */
export async function searchCases(sql: Pick<SqlClient, 'query'>, perKind = 120): Promise<SearchCase[]> {
  const sample = (where: string, order: string, limit: number) => sql.query<Company>(
    `SELECT e.id, e.name FROM entities e
      WHERE e.deleted_at IS NULL AND e.search_name ~ '^[a-z]' AND ${where}
        AND NOT EXISTS (SELECT 1 FROM entities o WHERE (o.search_name COLLATE "C") = e.search_name AND o.id <> e.id AND o.deleted_at IS NULL)
      ORDER BY ${order} LIMIT $1`,
    [limit],
  );
  const random = prng(4403);
  const candidates: { kind: Kind; q: string; expected: number }[] = [];
  for (const kind of SEARCH_CASE_KINDS) {
    const where = kind === 'short name typo' ? 'length(e.name) BETWEEN 3 AND 5' : 'length(e.search_name) >= 6';
    // Half among the 2,000 most funded, half from all; drawn twice as many, as some queries are left out.
    const funded = await sample(`${where} AND e.id IN (SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY total_funding_usd DESC, id LIMIT 2000)`,
      `md5(e.id::text || $$${kind}$$)`, perKind);
    const any = await sample(where, `md5(e.id::text || $$${kind}$$ || 'any')`, perKind);
    const companies = funded.flatMap((company, index) => [company, any[index]]).filter((c): c is Company => c !== undefined);
    for (const company of companies) {
      const q = queryOf(kind, company.name, random);
      if (q) candidates.push({ kind, q, expected: company.id });
    }
  }
  // Only queries that are not another entity's name.
  const kept = await sql.query<{ i: number }>(
    `SELECT (n.i - 1)::int AS i FROM unnest($1::text[], $2::int[]) WITH ORDINALITY n(q, expected, i)
      WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE (e.search_name COLLATE "C") = search_text(n.q) AND e.id <> n.expected)
      ORDER BY n.i`,
    [candidates.map((c) => c.q), candidates.map((c) => c.expected)],
  );
  const byKind = new Map<string, SearchCase[]>();
  for (const { i } of kept) {
    const c = candidates[i]!;
    const list = byKind.get(c.kind) ?? [];
    if (list.length < perKind) list.push({ ...c, part: partOf(c.expected) });
    byKind.set(c.kind, list);
  }
  return [...byKind.values()].flat();
}
