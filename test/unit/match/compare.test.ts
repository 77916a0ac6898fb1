import { describe, expect, it } from 'vitest';
import { compare } from '../../../src/match/compare.ts';
import type { MatchRecord } from '../../../src/match/input.ts';
import { matchWeight } from '../../../src/match/model.ts';
import { PARAMETERS } from '../../../src/match/parameters.ts';
import type { CandidateRow } from '../../../src/match/statement.ts';

/** The demo data's figures: 24,256 entities, "labs" on 164 of them, names one edit apart 178 times as often as the same. */
const STATISTICS = new Map([
  ['name.entities', 24_256], ['name.exact', 4.4e-8], ['name.one_edit', 7.9e-6], ['name.different', 0.9965],
  ['hq_country.entities', 22_618], ['hq_country.disagree', 0.049], ['website.entities', 1575], ['website.disagree', 0.9994],
]);
const COUNTS: Record<string, number> = { labs: 164, color: 2, cortex: 2, healthcare: 60, systems: 575, mesh: 3, data: 83 };

const record = (fields: Partial<MatchRecord>): MatchRecord => ({
  name: '', domain: '', hq_country: '', hq_city: '', launch_year: null, external_id: null, metadata: null, ...fields,
});

/** A candidate row as the statement gives it, for the record's normalised name `key`. */
function row(key: string, name: string, fields: Partial<CandidateRow> = {}): CandidateRow {
  const counts = (text: string) => text.split(' ').map((word) => COUNTS[word] ?? 0);
  return {
    idx: 0, id: 1, name, website: '', website_domain: '', hq_country: 'United States', hq_city: '', launch_year: null,
    search_name: name.toLowerCase(), key, word_counts: counts(name.toLowerCase()).map((n) => Math.max(n, 1)), key_word_counts: counts(key),
    name_count: 1, country_count: 22_000, city_count: 0, domain_count: 0, id_count: 0, source_ids: null, ...fields,
  };
}

const nameOf = (key: string, name: string) => compare(record({ name: key }), row(key, name), STATISTICS).find((o) => o.comparison === 'name')!;
const weight = (key: string, name: string) => matchWeight([nameOf(key, name)], PARAMETERS).total;

describe('compare', () => {
  it('puts a name in the level its difference says', () => {
    expect(nameOf('scalearc', 'Scale Arc').level).toBe('exact');
    expect(nameOf('cotrex healthcare', 'Cortex Healthcare').level).toBe('one_edit');
    expect(nameOf('cortex', 'Cortex Healthcare').level).toBe('all_words');
    expect(nameOf('vexulozor labs', 'Color Labs').level).toBe('some_words');
    expect(nameOf('ulokeshplim', 'Mesh Systems').level).toBe('different');
  });

  it('weighs a shared common word below a shared rare one, part of a name below all of it', () => {
    // "systems", on 575 of 24,256 entities, is shared by chance more often than a name is one edit away.
    expect(weight('ulokeshplim systems', 'Mesh Systems')).toBeLessThan(weight('cortex vexulozor', 'Cortex Labs'));
    expect(weight('cortex vexulozor', 'Cortex Labs')).toBeLessThan(0);
    expect(weight('cotrex healthcare', 'Cortex Healthcare')).toBeLessThan(weight('cortex healthcare', 'Cortex Healthcare'));
    expect(weight('cotrex healthcare', 'Cortex Healthcare')).toBeGreaterThan(weight('cortex', 'Cortex Healthcare'));
    // A name of two common words is more often a name by chance than one of rare words, agreeing as much.
    expect(weight('data systems', 'Data Systems')).toBeLessThan(weight('cortex healthcare', 'Cortex Healthcare'));
  });

  it('leaves out an input one side lacks, and a website on a platform', () => {
    const fields = compare(record({ name: 'color labs', domain: 'color.com' }), row('color labs', 'Color Labs', { website_domain: 'facebook.com', hq_country: '' }), STATISTICS)
      .map((o) => o.comparison);
    expect(fields).toEqual(['name']);
    const agreeing = compare(record({ domain: 'color.com', hq_country: 'US' }), row('', 'Color Labs', { website_domain: 'color.com', domain_count: 1 }), STATISTICS);
    expect(agreeing.map((o) => [o.comparison, o.level])).toEqual([['website', 'agree'], ['hq_country', 'agree']]);
  });
});
