/**
 * City names as sources type them, made into one spelling per city and country: `SAN FRANCISCO`,
 * `San Francisco, CA`, `San-Francisco` and `San Francsico` are all San Francisco. Two steps:
 * - `cleanCityName` (per record, no context): whitespace, a suffix after a comma (`, CA`), all-caps
 *   or all-lower case, and a "city" that is the record's own country (`United States`) dropped;
 * - `findSpelling` (against the cities already known in the same country, with how many entities use
 *   each): the same name up to case, accents and punctuation, or a typo of a much more used name.
 *   Typos are judged only once an import is complete (how rare a spelling is shows only then); the
 *   spellings merged are remembered (location_spellings), so later imports resolve them at once.
 * A typo is one inserted, dropped or swapped letter, never a replaced one: `Weston` and `Reston`,
 * `Tustin` and `Austin` are different towns, `Sunnnyvale` and `Saeattle` are not.
 */
import { distance } from 'fastest-levenshtein';
import { canonicalCountryName } from '../../countries.ts';

/** Countries whose capital shares their name, where a city named like the country is real. */
const CITY_STATES = new Set(['Singapore', 'Hong Kong', 'Macao', 'Monaco', 'Luxembourg', 'Vatican City', 'Gibraltar', 'San Marino', 'Kuwait', 'Djibouti']);

/** A misspelling is rare (at most this many entities use it)... */
const MAX_TYPO_USES = 3;
/** ...and the name it is taken for is common: at least this many uses, and ten times the typo's. */
const MIN_TARGET_USES = 10;
const TARGET_RATIO = 10;
/** Shorter names are left alone: one letter changes too much of them. */
const MIN_TYPO_KEY_LENGTH = 6;

export function cleanCityName(city: string, country: string): string {
  let name = city.replace(/\s+/g, ' ').trim();
  // `San Francisco, CA`, `Washington, D.C.`, `Palo Alto, San Francisco`: the first place is the city.
  name = name.split(',')[0]!.trim();
  if (/\p{L}/u.test(name) && (name === name.toUpperCase() || name === name.toLowerCase())) name = titleCase(name);
  if (country && canonicalCountryName(name) === country && !CITY_STATES.has(country)) return '';
  return name;
}

function titleCase(text: string): string {
  return text.toLowerCase().replace(/(^|[\s\-'(])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}

/** The name without case, accents, spaces or punctuation: `St. Louis` and `st louis` share one. */
export function spellingKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

export interface KnownCity {
  id: number;
  name: string;
  /** Entities that have it as their HQ city. */
  uses: number;
  /** `spellingKey(name)`, computed once. */
  key: string;
}

export function knownCity(id: number, name: string, uses: number): KnownCity {
  return { id, name, uses, key: spellingKey(name) };
}

/**
 * The known city that `city` (a known row with its id, or a new name) stands for, or undefined when it
 * is a city of its own. Among several candidates the most used wins, then the lowest id (the first
 * imported); a spelling only ever yields to a more used one, or an equally used older one, so two
 * rows never point at each other.
 */
export function findSpelling(
  city: { name: string; uses: number; id?: number },
  known: Iterable<KnownCity>,
  { typos = true } = {},
): KnownCity | undefined {
  const { name, uses, id } = city;
  const key = spellingKey(name);
  let best: KnownCity | undefined;
  for (const candidate of known) {
    if (candidate.name === name || candidate.id === id) continue;
    const preferred = candidate.uses > uses || (candidate.uses === uses && (id === undefined || candidate.id < id));
    const sameName = candidate.key === key && key !== '' && preferred;
    if (!sameName && !(typos && isTypoOf(key, uses, candidate.key, candidate.uses))) continue;
    if (!best || candidate.uses > best.uses || (candidate.uses === best.uses && candidate.id < best.id)) best = candidate;
  }
  return best;
}

function isTypoOf(key: string, uses: number, target: string, targetUses: number): boolean {
  if (uses > MAX_TYPO_USES || targetUses < MIN_TARGET_USES || targetUses < TARGET_RATIO * Math.max(uses, 1)) return false;
  if (key.length < MIN_TYPO_KEY_LENGTH || key[0] !== target[0]) return false;
  if (Math.abs(key.length - target.length) === 1) return distance(key, target) === 1;
  return key.length === target.length && isAdjacentSwap(key, target);
}

function isAdjacentSwap(a: string, b: string): boolean {
  const differ = [...a].flatMap((char, index) => (char === b[index] ? [] : [index]));
  const [first, second] = differ;
  return differ.length === 2 && second === first! + 1 && a[first!] === b[second] && a[second] === b[first!];
}
