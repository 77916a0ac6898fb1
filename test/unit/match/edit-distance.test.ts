import { describe, expect, it } from 'vitest';
import { editDistance } from '../../../src/match/edit-distance.ts';
import { prng } from '../../helpers/match-cases.ts';

/** The whole table, no band: optimal string alignment distance as its definition states it. */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe('editDistance', () => {
  it('counts a letter missing, added, replaced, or two neighbours swapped as one edit', () => {
    expect(editDistance('scalearc', 'sclaearc', 2)).toBe(1);
    expect(editDistance('cortex', 'cotrex', 2)).toBe(1);
    expect(editDistance('stripe', 'stipe', 2)).toBe(1);
    expect(editDistance('stripe', 'strripe', 2)).toBe(1);
    expect(editDistance('newbay', 'nebway', 2)).toBe(1);
    expect(editDistance('airbnb', 'airbnb', 2)).toBe(0);
    expect(editDistance('', 'ab', 2)).toBe(2);
  });

  it('agrees with the whole table up to its bound, and says only "more" past it', () => {
    const random = prng(7);
    const word = () => Array.from({ length: Math.floor(random() * 9) }, () => 'abcd'[Math.floor(random() * 4)]).join('');
    for (let n = 0; n < 3000; n += 1) {
      const [a, b, max] = [word(), word(), 1 + Math.floor(random() * 3)];
      expect(editDistance(a, b, max), `${a} ${b} ${max}`).toBe(Math.min(reference(a, b), max + 1));
    }
  });
});
