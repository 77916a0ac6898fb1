import { distance } from 'fastest-levenshtein';

const MAX_SUGGESTIONS = 5;

/**
 * The candidates a mistyped name most likely meant, nearest first: at most a quarter of its length in
 * edits (one to three), or containing it (`funding` → `total_funding_usd`). Several spellings of the
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
    const score = Math.abs(candidate.length - query.length) <= budget ? distance(query, candidate) : Infinity;
    if (score <= budget) scored.push([candidate, score]);
    else if (query.length >= 3 && candidate.includes(query)) scored.push([candidate, budget + 1]);
  }
  return scored;
}
