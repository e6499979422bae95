/** strings.count, indexof_n and trace. Positions count code points, as OPA counts runes. */
import { builtinError } from "./errors.js";
import { stringOperand } from "./operands.js";

/** Go's strings.Count: non-overlapping occurrences; an empty substring counts code points + 1. */
export function stringsCount(search: unknown, substring: unknown): number {
  const s = stringOperand(search, 1);
  const sub = stringOperand(substring, 2);
  if (sub === "") return [...s].length + 1;
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

/** Every (overlapping) code point index where `search` starts. */
export function indexOfN(haystack: unknown, needle: unknown): number[] {
  const h = [...stringOperand(haystack, 1)];
  const n = [...stringOperand(needle, 2)];
  if (n.length === 0) throw builtinError("empty search character");
  const out: number[] = [];
  for (let i = 0; i + n.length <= h.length; i++) {
    let ok = true;
    for (let j = 0; j < n.length && ok; j++) ok = h[i + j] === n[j];
    if (ok) out.push(i);
  }
  return out;
}

/** trace(note) holds; notes are for OPA's tracer, which a compiled policy does not have. */
export function trace(note: unknown): boolean {
  stringOperand(note, 1);
  return true;
}

export const textBuiltins = {
  "strings.count": stringsCount,
  indexof_n: indexOfN,
  trace,
};
