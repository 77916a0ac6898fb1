// Close matches for mistyped names (src/filter/suggest.ts): a swap of two neighbouring letters is one
// edit, so short names find what they meant; the budget still keeps unrelated names out.
import { describe, expect, it } from 'vitest';
import { distance } from 'fastest-levenshtein';
import { closeMatches, editDistance } from '../../../src/filter/suggest.ts';

describe('editDistance', () => {
  it('counts a swap of neighbours as one edit, everything else as Levenshtein does', () => {
    expect(editDistance('coutn', 'count')).toBe(1);
    expect(editDistance('ocunt', 'count')).toBe(1);
    expect(editDistance('cuont', 'count')).toBe(1);
    expect(editDistance('hq_countyr', 'hq_country')).toBe(1);
    for (const [a, b] of [['sun', 'sum'], ['', 'abc'], ['abc', ''], ['kitten', 'sitting'], ['flaw', 'lawn'], ['same', 'same'], ['round_typ', 'round_type']] as const) {
      expect(editDistance(a, b), `${a} → ${b}`).toBe(distance(a, b));
    }
  });
});

describe('closeMatches', () => {
  const metrics = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'median'];

  it('finds a short name with two letters swapped', () => {
    expect(closeMatches(['coutn'], metrics)).toEqual(['count']);
    expect(closeMatches(['smu'], metrics)).toEqual(['sum']);
  });

  it('still finds nothing for a name that is not close', () => {
    expect(closeMatches(['total'], metrics)).toEqual([]);
    expect(closeMatches(['tnuoc'], metrics)).toEqual([]);
  });
});
