/**
 * `internal.template_string`, what OPA lowers `$"a{x}b"` to: its operand is an array
 * of the literal text and, for each interpolation, the set of its values (sets reach
 * the host as arrays). An empty set renders `<undefined>`; a string renders as its
 * text, anything else as its Rego text (a set nested inside a value prints as an
 * array, as everywhere on the host); two or more values are OPA's conflict error
 * (`eval_conflict_error`, in non-strict mode too).
 */
import { conflictError } from "./errors.js";
import { arrayOperand } from "./operands.js";
import { regoText } from "./rego-text.js";

const render = (v: unknown): string => (typeof v === "string" ? v : regoText(v));

export function templateString(parts: unknown): string {
  let out = "";
  for (const p of arrayOperand(parts, 1)) {
    if (!Array.isArray(p)) {
      out += render(p);
      continue;
    }
    if (p.length > 1) throw conflictError("template-strings must not produce multiple outputs");
    out += p.length === 0 ? "<undefined>" : render(p[0]);
  }
  return out;
}

export const templateStringBuiltins = { "internal.template_string": templateString };
