const MAX_SUGGESTIONS = 5;

/**
 * The candidates a mistyped name most likely meant, nearest first: at most a quarter of its length in
 * edits (one to three; two swapped neighbours are one edit, so `coutn` finds `count`), or containing it
 * (`funding` → `total_funding_usd`). Several spellings of the
 * same intent may be given (`entity.id` is tried as `id` and as `entity_id`).
 */
export function closeMatches(names: readonly string[], candidates: readonly string[]): string[] {
  const best = new Map<string, number>();
  for (const name of names) {
    for (const [candidate, score] of scoreCandidates(name.toLowerCase(), candidates)) {
      best.set(candidate, Math.min(score, best.get(candidate) ?? Infinity));
    }
  }
  return [...best]
    .sort(([a, scoreA], [b, scoreB]) => scoreA - scoreB || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_SUGGESTIONS)
    .map(([candidate]) => candidate);
}

function scoreCandidates(query: string, candidates: readonly string[]): [string, number][] {
  const budget = Math.min(3, Math.max(1, Math.floor(query.length / 4)));
  const scored: [string, number][] = [];
  for (const candidate of candidates) {
    // Edits can never be fewer than the difference in length, so long garbage skips the distance.
    const score = Math.abs(candidate.length - query.length) <= budget ? editDistance(query, candidate) : Infinity;
    if (score <= budget) scored.push([candidate, score]);
    else if (query.length >= 3 && candidate.includes(query)) scored.push([candidate, budget + 1]);
  }
  return scored;
}

/**
 * Edits from `a` to `b`: insertions, deletions, substitutions, and swaps of two neighbouring letters
 * (optimal string alignment). Plain Levenshtein counts a swap as two, more than a short name's budget
 * of one, so the commonest slip of typing found nothing. Names are short and candidates few.
 */
export function editDistance(a: string, b: string): number {
  // Three rows of the table: the one before the previous, the previous, the current.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
