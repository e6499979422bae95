/** `toolgate fmt`'s engine: Rego source -> canonical Rego source, from the AST. */
import type { Diagnostic } from "../../diagnostics.js";
import { parseModule, type ParseOptions } from "../parser.js";
import { printModule } from "./module.js";

export { printModule } from "./module.js";

export type FormatResult =
  | { readonly ok: true; readonly text: string; readonly changed: boolean }
  | { readonly ok: false; readonly errors: readonly Diagnostic[] };

/** Formats one file's text; a file that does not parse is reported, never rewritten. */
export function formatSource(source: string, file: string, options: ParseOptions = {}): FormatResult {
  const { module, errors } = parseModule(source, file, options);
  if (module === null || errors.length > 0) return { ok: false, errors };
  const text = printModule(module);
  return { ok: true, text, changed: text !== source };
}
