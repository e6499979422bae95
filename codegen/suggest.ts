/** "Did you mean ...?" for misspelled names: the closest candidate by edit distance. */

/** Edit distance between two strings: insertions, deletions, substitutions and swaps of two adjacent characters. */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      cur[j] = d;
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length] as number;
}

/**
 * The candidate closest to `name`, when close enough to be a typo (at most a third of
 * its length changed, at least one edit allowed); else null.
 */
export function closestName(name: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  if (best === null) return null;
  if (bestDistance <= Math.max(1, Math.floor(best.length / 3))) return best;
  return null;
}
