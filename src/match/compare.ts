/**
 * The comparisons of record linkage (the Fellegi-Sunter model, as Splink builds it): each input that
 * both the record and the candidate have falls into one level of its comparison, and each level has
 * a u probability, the chance that two unrelated entities agree that way. Agreeing on a value is
 * weighed by how common the value is (term-frequency adjustment): u is the share of entities that
 * have it, and for a name, the product of the shares of the words both names have, so a shared
 * "Labs" or "Systems" says little and a shared rare word says much. The m probabilities, the chance
 * that a record and its own entity agree that way, are src/match/parameters.ts's.
 */
import { canonicalCountryName } from '../data/countries.ts';
import { isPlatformDomain } from '../identifiers/platforms.ts';
import { editDistance } from './edit-distance.ts';
import type { MatchRecord } from './input.ts';
import type { CandidateRow } from './statement.ts';

export const LEVELS = {
  external_id: ['agree', 'disagree'],
  website: ['agree', 'disagree'],
  name: ['exact', 'one_edit', 'all_words', 'some_words', 'different'],
  hq_country: ['agree', 'disagree'],
  hq_city: ['agree', 'disagree'],
  launch_year: ['same', 'one_apart', 'near', 'far'],
} as const;

export type Comparison = keyof typeof LEVELS;
export type Level<C extends Comparison = Comparison> = (typeof LEVELS)[C][number];

export interface Observation {
  comparison: Comparison;
  level: Level;
  /** The chance that two unrelated entities agree this way. */
  u: number;
  detail: string;
}

/** `comparison.level` → value, from match_statistics (src/match/statement.ts readStatistics). */
export type Statistics = ReadonlyMap<string, number>;

const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const countryOf = (text: string) => fold(canonicalCountryName(text) ?? text);
const count = (n: number) => n.toLocaleString('en-US');

/** The share of `entities` that `n` is, never below one of them. */
function share(n: number, entities: number): number {
  const total = Math.max(entities, 1);
  return Math.max(n, 1) / total;
}

/** Every comparison the record and the candidate can make: those of an input one side lacks are left out. */
export function compare(record: MatchRecord, row: CandidateRow, statistics: Statistics): Observation[] {
  const stat = (key: string) => statistics.get(key) ?? 1;
  const observations: Observation[] = [];
  /** An input that agrees (weighed by how many entities share the value) or disagrees. */
  const agreement = (comparison: Comparison, agrees: boolean, sharing: number, [ifAgrees, ifNot]: [string, string]) =>
    observations.push(agrees
      ? { comparison, level: 'agree', u: share(sharing, stat(`${comparison}.entities`)), detail: ifAgrees }
      : { comparison, level: 'disagree', u: stat(`${comparison}.disagree`), detail: ifNot });
  if (record.external_id && row.source_ids?.length) {
    const { source, id } = record.external_id;
    agreement('external_id', row.source_ids.includes(id), row.id_count, [`same ${source} id ${id}`, `its ${source} id is ${row.source_ids.join(', ')}`]);
  }
  if (record.domain && row.website_domain && !isPlatformDomain(row.website_domain)) {
    agreement('website', row.website_domain === record.domain, row.domain_count, [`same domain ${record.domain}`, `its domain is ${row.website_domain}`]);
  }
  if (row.key && row.search_name) observations.push(compareName(row, statistics));
  if (record.hq_country && row.hq_country) {
    const agrees = countryOf(record.hq_country) === countryOf(row.hq_country);
    agreement('hq_country', agrees, row.country_count, [`both in ${row.hq_country}`, `it is in ${row.hq_country}`]);
  }
  if (record.hq_city && row.hq_city) {
    agreement('hq_city', fold(record.hq_city) === fold(row.hq_city), row.city_count, [`both in ${row.hq_city}`, `it is in ${row.hq_city}`]);
  }
  if (record.launch_year !== null && row.launch_year !== null) {
    const apart = Math.abs(record.launch_year - row.launch_year);
    const level = apart === 0 ? 'same' : apart === 1 ? 'one_apart' : apart <= 3 ? 'near' : 'far';
    observations.push({ comparison: 'launch_year', level, u: stat(`launch_year.${level}`), detail: `launched ${row.launch_year}` });
  }
  return observations;
}

interface Word {
  text: string;
  /** The share of entities whose name carries it. */
  frequency: number;
}

/**
 * The record's and the candidate's normalised names: whole, then word by word. The whole name's
 * agreement is weighed by how common the name is (its words' shares multiplied, or the share of
 * entities of that name, the larger), as Splink adjusts an exact match by the value's frequency; a
 * name one edit away is that, times how much more often two entities' names are one edit apart than
 * the same (Splink's u of the level over u of the exact level). Shared words are weighed by their
 * shares multiplied, and never as rarer than the whole name one edit away: part of a name says less.
 */
function compareName(row: CandidateRow, statistics: Statistics): Observation {
  const entities = statistics.get('name.entities') ?? 1;
  const words = (name: string, counts: readonly number[]): Word[] =>
    name.split(' ').map((text, index) => ({ text, frequency: share(counts[index] ?? 0, entities) }));
  const ours = words(row.key, row.key_word_counts);
  const theirs = words(row.search_name, row.word_counts);
  const product = (list: readonly Word[]) => list.reduce((p, word) => p * word.frequency, 1);
  const observe = (level: Level<'name'>, u: number, detail: string): Observation => ({ comparison: 'name', level, u, detail });
  const nameFrequency = Math.max(product(ours), product(theirs), share(row.name_count, entities));
  const oneEdit = nameFrequency * (statistics.get('name.one_edit') ?? 1) / (statistics.get('name.exact') ?? 1);
  const flat = [row.key.replaceAll(' ', ''), row.search_name.replaceAll(' ', '')] as const;
  if (flat[0] === flat[1]) return observe('exact', nameFrequency, 'same name once case, accents, spacing, punctuation and legal form are ignored');
  if (Math.min(flat[0].length, flat[1].length) >= 3 && editDistance(flat[0], flat[1], 1) === 1) {
    return observe('one_edit', oneEdit, `one letter apart (${row.key} / ${row.search_name})`);
  }
  const pairs = pairWords(ours, theirs);
  if (!pairs.length) return observe('different', statistics.get('name.different') ?? 1, 'no word in common');
  const u = Math.max(pairs.reduce((p, [a, b]) => p * Math.max(a.frequency, b.frequency), 1), oneEdit);
  const shared = pairs.map(([, b]) => `${b.text} (${count(Math.round(b.frequency * entities))} of ${count(entities)} entities)`).join(', ');
  const level = pairs.length === Math.min(ours.length, theirs.length) ? 'all_words' : 'some_words';
  return observe(level, u, `${level === 'all_words' ? 'every word of the shorter name' : 'some words'} in common: ${shared}`);
}

/** Each of our words with a word of theirs that is the same, or one edit from it (words of 4+ letters). */
function pairWords(ours: readonly Word[], theirs: readonly Word[]): [Word, Word][] {
  const free = new Set(theirs.keys());
  const pairs: [Word, Word][] = [];
  for (const word of ours) {
    const close = (index: number) => {
      const other = theirs[index]!;
      return other.text === word.text || (Math.min(word.text.length, other.text.length) >= 4 && editDistance(word.text, other.text, 1) <= 1);
    };
    const exact = [...free].find((index) => theirs[index]!.text === word.text);
    const found = exact ?? [...free].find(close);
    if (found === undefined) continue;
    free.delete(found);
    pairs.push([word, theirs[found]!]);
  }
  return pairs;
}
