/**
 * Ground composite terms (arrays, sets, objects of literals only) as constant values
 * that the backend lays out once instead of building them on every evaluation.
 */
import type { Term } from "../rego/ast.js";
import type { ConstValue } from "./ir.js";

const SAFE = 2 ** 53;

/** The term's value when it is a literal scalar or a composite of them; null otherwise. */
export function groundValue(t: Term): ConstValue | null {
  switch (t.type) {
    case "null": return { type: "null" };
    case "boolean": return { type: "boolean", value: t.value };
    case "string": return { type: "string", value: t.value };
    case "number": {
      // Floats and big integers keep their exact text at run time (MakeNumberRefStmt).
      const n = Number(t.text);
      return /^-?\d+$/.test(t.text) && Math.abs(n) < SAFE ? { type: "number", value: n } : null;
    }
    case "array":
    case "set": {
      const items = groundItems(t.items);
      return items === null ? null : { type: t.type, items };
    }
    case "object": {
      const items: (readonly [ConstValue, ConstValue])[] = [];
      const keys = new Set<string>();
      for (const [kt, vt] of t.items) {
        const key = groundValue(kt);
        const value = groundValue(vt);
        if (key === null || value === null) return null;
        // A repeated key is left to the run-time insert (its conflict semantics).
        const id = JSON.stringify(key);
        if (keys.has(id)) return null;
        keys.add(id);
        items.push([key, value]);
      }
      return { type: "object", items };
    }
    default:
      return null;
  }
}

function groundItems(ts: readonly Term[]): ConstValue[] | null {
  const out: ConstValue[] = [];
  for (const t of ts) {
    const v = groundValue(t);
    if (v === null) return null;
    out.push(v);
  }
  return out;
}

/**
 * An object with string-literal keys, some ground and some not: the object with
 * `null` in place of each non-ground member (`open`: their item indices), so it can be
 * copied and completed. Null when there is no ground member to gain from.
 */
export function objectTemplate(t: Extract<Term, { type: "object" }>): { value: ConstValue; open: number[] } | null {
  const items: (readonly [ConstValue, ConstValue])[] = [];
  const open: number[] = [];
  const keys = new Set<string>();
  for (const [i, [kt, vt]] of t.items.entries()) {
    if (kt.type !== "string" || keys.has(kt.value)) return null;
    keys.add(kt.value);
    const value = groundValue(vt);
    if (value === null) open.push(i);
    items.push([{ type: "string", value: kt.value }, value ?? { type: "null" }]);
  }
  if (open.length === 0 || open.length === items.length) return null;
  return { value: { type: "object", items }, open };
}
