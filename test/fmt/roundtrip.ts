/** Shared by the fmt tests: parse -> print -> parse must give the same AST, and printing is idempotent. */
import { parseModule } from "../../codegen/rego/index.js";
import type { Module } from "../../codegen/rego/ast.js";
import { printModule } from "../../codegen/rego/format/index.js";

/** The AST without locations (and without the file name), for comparison. */
export function stripLocations(m: Module): unknown {
  return JSON.parse(JSON.stringify({ ...m, file: "" }, (k, v: unknown) => (k === "location" ? undefined : v)));
}

export type RoundTrip =
  | { readonly kind: "skipped"; readonly reason: string }
  | { readonly kind: "checked"; readonly first: string; readonly second: string; readonly sameAst: boolean; readonly reparseErrors: string[] };

export function roundTrip(source: string, file: string): RoundTrip {
  const parsed = parseModule(source, file);
  if (parsed.module === null || parsed.errors.length > 0) return { kind: "skipped", reason: "does not parse" };
  const first = printModule(parsed.module);
  const again = parseModule(first, file);
  if (again.module === null || again.errors.length > 0) {
    return { kind: "checked", first, second: "", sameAst: false, reparseErrors: again.errors.map((e) => `${e.location.row}:${e.location.col} ${e.message}`) };
  }
  const second = printModule(again.module);
  const sameAst = JSON.stringify(stripLocations(parsed.module)) === JSON.stringify(stripLocations(again.module));
  return { kind: "checked", first, second, sameAst, reparseErrors: [] };
}
