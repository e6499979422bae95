/**
 * `rego.parse_module(filename, rego)`: the module parsed by codegen/rego's parser (Rego v1,
 * as OPA's default) and returned as OPA's AST JSON (module-json.ts). A module that does not
 * parse is an `eval_builtin_error` with OPA's text of parse errors. Registered with the host
 * builtins by `registerParseModule` (the build tools call it; the run-time entry never loads
 * the parser).
 */
import { parseModule } from "../rego/parser.js";
import { BuiltinError, operandTypeError } from "../../src/policy/host-builtins/errors.js";
import { jsonText } from "../../src/policy/host-builtins/exact.js";
import { provideHostBuiltins } from "../../src/policy/host-builtins/provided.js";
import { moduleToOpaJson } from "./module-json.js";

export function regoParseModule(filename: unknown, rego: unknown): ArrayBuffer {
  if (typeof filename !== "string") throw operandTypeError(1, filename, "string");
  if (typeof rego !== "string") throw operandTypeError(2, rego, "string");
  const { module, errors } = parseModule(rego, filename);
  if (errors.length > 0 || module === null) {
    const lines = errors.map((e) => `${e.location.file}:${e.location.row}: ${e.code}: ${e.message}`);
    const head = lines.length === 1 ? "1 error occurred" : `${lines.length} errors occurred`;
    throw new BuiltinError("eval_builtin_error", `${head}: ${lines.join("\n")}`);
  }
  return jsonText(moduleToOpaJson(module));
}

export const parseModuleBuiltins = { "rego.parse_module": regoParseModule };

let registered = false;
/** Makes `rego.parse_module` available to every host builtin set of this process. */
export function registerParseModule(): void {
  if (registered) return;
  provideHostBuiltins(parseModuleBuiltins);
  registered = true;
}
