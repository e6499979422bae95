/**
 * Value equality as OPA compares results: numbers by value, objects without key order,
 * sets as sorted arrays. An expected value may use regorus's case notation:
 * `{"set!": [items]}` (any order) and `{"object!": [{key, value}]}` (non-string keys as
 * their JSON text, as the SDK's JSON carries them).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  const set = tagged(b, "set!");
  if (set !== null) return Array.isArray(a) && a.length === set.length && set.every((x) => a.some((y) => sameValue(y, x)));
  const obj = tagged(b, "object!");
  if (obj !== null) {
    const entries = obj.map((e) => e as { key?: unknown; value?: unknown });
    return sameValue(a, Object.fromEntries(entries.map((e) => [typeof e.key === "string" ? e.key : JSON.stringify(e.key), e.value])));
  }
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i]));
  }
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function tagged(v: unknown, tag: string): unknown[] | null {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  const keys = Object.keys(v);
  const items = (v as Record<string, unknown>)[tag];
  return keys.length === 1 && Array.isArray(items) ? items : null;
}
