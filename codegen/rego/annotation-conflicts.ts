/**
 * One METADATA block per package (`scope: package`), per document (`scope: document`,
 * keyed by the rule's path) and per subpackages root, across all files: a second one
 * is OPA's `rego_type_error` "<scope> annotation redeclared: <first block>", at the
 * second block (files in name order, blocks in source order, as OPA's compiler).
 * Document and subpackages blocks share one path space, as in OPA.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Annotation, Location, Module } from "./ast.js";
import { rulePath } from "./metadata-calls.js";

export function checkAnnotationRedeclarations(modules: readonly Module[], errors: Diagnostic[]): void {
  const byPackage = new Map<string, Location>();
  const byPath = new Map<string, Location>();
  const sorted = [...modules].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const m of sorted) {
    for (const a of m.annotations ?? []) {
      const seen = a.scope === "package" ? byPackage : a.scope === "document" || a.scope === "subpackages" ? byPath : null;
      const path = seen === null ? null : pathOf(m, a);
      if (seen === null || path === null) continue;
      const key = JSON.stringify(path);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, a.location);
      else errors.push({ code: "rego_type_error", message: `${a.scope} annotation redeclared: ${first.file}:${first.row}:${first.col}`, location: a.location, hint: "merge the two METADATA blocks into one" });
    }
  }
}

function pathOf(m: Module, a: Annotation): readonly string[] | null {
  if (a.scope === "package" || a.scope === "subpackages") return m.package.path;
  if (a.target.kind !== "rule") return null;
  const r = m.rules[a.target.rule];
  return r === undefined ? null : rulePath(m, r);
}
