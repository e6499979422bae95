/**
 * The SDK returns the query entrypoint's result set. Each element holds the
 * bindings of the query's variables (codegen/compiler/README.md).
 */
export type Bindings =
  | { readonly ok: true; readonly bindings: Record<string, unknown>[] }
  | { readonly ok: false; readonly reason: string };

export function readBindings(resultSet: unknown): Bindings {
  if (!Array.isArray(resultSet)) return { ok: false, reason: `not an array: ${JSON.stringify(resultSet)}` };
  const out: Record<string, unknown>[] = [];
  for (const r of resultSet) {
    if (typeof r !== "object" || r === null || Array.isArray(r)) {
      return { ok: false, reason: `element is not an object: ${JSON.stringify(r)}` };
    }
    out.push(r as Record<string, unknown>);
  }
  return { ok: true, bindings: out };
}
