/**
 * Rego's printed form of a value (OPA's `ast.Value.String()`), which OPA's sprintf
 * uses for booleans, null, arrays and objects. Sets reach the host as arrays and
 * print as arrays (see README.md).
 */
export function regoText(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return numberText(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(regoText).join(", ")}]`;
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}: ${regoText(x)}`).join(", ")}}`;
  }
  return String(v);
}

/** JSON number text as OPA prints it (integers without exponent up to 1e21, as JSON.stringify). */
export function numberText(n: number): string {
  return JSON.stringify(n);
}
