/**
 * Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring):
 * a letter missing, added or replaced, or two neighbours swapped, is one edit. Only distances up to
 * `max` are needed, so only the band of the table within `max` of its diagonal is filled: the cost
 * is the length times the band, not the product of the lengths.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  const far = max + 1;
  // Three rows of the table: two back (for a swap), the previous one and the current one.
  let before = new Array<number>(width).fill(far);
  let previous = Array.from({ length: width }, (_, j) => (j <= max ? j : far));
  for (let i = 1; i <= a.length; i += 1) {
    const current = new Array<number>(width).fill(far);
    if (i <= max) current[0] = i;
    let best = current[0]!;
    for (let j = Math.max(1, i - max); j <= Math.min(b.length, i + max); j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current[j] = Math.min(value, far);
      best = Math.min(best, current[j]!);
    }
    if (best > max) return far;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, far);
}
