/**
 * regex.globs_match: do two regexp-style globs match a common non-empty string?
 * The glob language is that of github.com/yashtewari/glob-intersection, which OPA
 * uses: `.` any character, `[...]` sets with `a-z` ranges, `+` and `*` after a
 * token, `\` escapes; both globs are anchored at both ends. Decided by a search
 * over pairs of automaton states.
 */
import { builtinError } from "./errors.js";
import { stringOperand } from "./operands.js";

/** A token: `null` set = any character. */
interface Tok { readonly set: ReadonlySet<number> | null; readonly star: boolean }

function tokenize(glob: string): Tok[] {
  const cps = [...glob].map((c) => c.codePointAt(0)!);
  const out: Tok[] = [];
  let i = 0;
  const next = (): [number, boolean] => {
    const c = cps[i]!;
    if (c === 0x5c) {
      if (i + 1 >= cps.length) throw builtinError("the input provided is invalid: input ends with a \\ (escape) character");
      i += 2;
      return [cps[i - 1]!, true];
    }
    i++;
    return [c, false];
  };
  while (i < cps.length) {
    const [c, esc] = next();
    let set: Set<number> | null;
    if (!esc && (c === 0x2b || c === 0x2a)) throw builtinError("the input provided is invalid: flag must be preceded by a non-flag");
    if (!esc && c === 0x5d) throw builtinError("the input provided is invalid: set-close ']' with no preceding '['");
    if (!esc && c === 0x2e) set = null;
    else if (!esc && c === 0x5b) {
      set = new Set<number>();
      let prev: number | null = null;
      let closed = false;
      while (i < cps.length) {
        const [d, e] = next();
        if (!e && d === 0x5d) { closed = true; break; }
        if (!e && d === 0x2d) {
          if (prev === null || i >= cps.length) throw builtinError("the input provided is invalid: bad range in set");
          const [hi] = next();
          if (hi < prev) throw builtinError("the input provided is invalid: range is out of order");
          for (let x = prev; x <= hi; x++) set.add(x);
          prev = null;
          continue;
        }
        set.add(d);
        prev = d;
      }
      if (!closed) throw builtinError("the input provided is invalid: found [ without matching ]");
    } else set = new Set([c]);
    const flag = cps[i];
    if (flag === 0x2a) { i++; out.push({ set, star: true }); }
    else if (flag === 0x2b) { i++; out.push({ set, star: false }, { set, star: true }); }
    else out.push({ set, star: false });
  }
  return out;
}

function intersects(a: ReadonlySet<number> | null, b: ReadonlySet<number> | null): boolean {
  if (a === null) return b === null || b.size > 0;
  if (b === null) return a.size > 0;
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (big.has(x)) return true;
  return false;
}

/** Is there a non-empty string both globs match? */
export function globsIntersect(g1: string, g2: string): boolean {
  const a = tokenize(g1);
  const b = tokenize(g2);
  const seen = new Set<string>();
  const stack: [number, number, boolean][] = [[0, 0, false]];
  while (stack.length > 0) {
    const [i, j, consumed] = stack.pop()!;
    const key = `${i},${j},${consumed ? 1 : 0}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === a.length && j === b.length && consumed) return true;
    // Skip an optional (starred) token on either side.
    if (i < a.length && a[i]!.star) stack.push([i + 1, j, consumed]);
    if (j < b.length && b[j]!.star) stack.push([i, j + 1, consumed]);
    // Consume one character both tokens accept.
    if (i < a.length && j < b.length && intersects(a[i]!.set, b[j]!.set)) {
      const ni = a[i]!.star ? i : i + 1;
      const nj = b[j]!.star ? j : j + 1;
      stack.push([ni, nj, true]);
    }
  }
  return false;
}

export function globsMatch(glob1: unknown, glob2: unknown): boolean {
  return globsIntersect(stringOperand(glob1, 1), stringOperand(glob2, 2));
}
