/** strings.render_template: Go's text/template over the variables, missing keys an error (OPA's option). */
import { operandTypeError } from "./errors.js";
import { executeTemplate, fromJson } from "./go-template-exec.js";
import { parseTemplate } from "./go-template-parse.js";
import { stringOperand } from "./operands.js";

export function renderTemplate(template: unknown, vars: unknown): string {
  const src = stringOperand(template, 1);
  if (typeof vars !== "object" || vars === null || Array.isArray(vars)) throw operandTypeError(2, vars, "object");
  return executeTemplate(src, parseTemplate(src), fromJson(vars));
}

export const renderTemplateBuiltins = { "strings.render_template": renderTemplate };
