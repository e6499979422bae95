/**
 * OPA's total order over ground values (RUNTIME-API.md section 3, the runtime's
 * `compare`), for laying out static sets and objects as the runtime keeps them:
 * null < booleans < numbers < strings < arrays < objects < sets; strings bytewise
 * (UTF-8), collections member by member, then by length.
 */
import type { ConstValue } from "../../plan/ir.js";

const RANK: Record<ConstValue["type"], number> = { null: 1, boolean: 2, number: 3, string: 4, array: 5, object: 6, set: 7 };
const utf8 = new TextEncoder();

export function compareConst(a: ConstValue, b: ConstValue): number {
  if (a.type !== b.type) return RANK[a.type] < RANK[b.type] ? -1 : 1;
  switch (a.type) {
    case "null": return 0;
    case "boolean": return a.value === (b as typeof a).value ? 0 : a.value ? 1 : -1;
    case "number": return Math.sign(a.value - (b as typeof a).value);
    case "string": return compareBytes(utf8.encode(a.value), utf8.encode((b as typeof a).value));
    case "array": return compareLists(a.items, (b as typeof a).items);
    case "set": return compareLists(sortedMembers(a.items), sortedMembers((b as typeof a).items));
    case "object": {
      const pairs = (v: typeof a): ConstValue[] => [...v.items].sort((x, y) => compareConst(x[0], y[0])).flatMap(([k, x]) => [k, x]);
      const pa = pairs(a);
      const pb = pairs(b as typeof a);
      // Entry by entry (key, then value); the shorter object first.
      const n = Math.min(pa.length, pb.length);
      for (let i = 0; i < n; i++) {
        const c = compareConst(pa[i]!, pb[i]!);
        if (c !== 0) return c;
      }
      return Math.sign(pa.length - pb.length);
    }
  }
}

/** A set's members in order, duplicates dropped (as the runtime's set insert does). */
export function sortedMembers(items: readonly ConstValue[]): ConstValue[] {
  const sorted = [...items].sort(compareConst);
  return sorted.filter((x, i) => i === 0 || compareConst(sorted[i - 1]!, x) !== 0);
}

function compareLists(a: readonly ConstValue[], b: readonly ConstValue[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareConst(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return Math.sign(a.length - b.length);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return Math.sign(a.length - b.length);
}
