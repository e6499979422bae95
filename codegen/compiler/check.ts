/**
 * `toolgate check` without the WebAssembly backend: the front end and the planner
 * only, so the command never loads binaryen or the emitter.
 */
import type { Diagnostic } from "../diagnostics.js";
import { compareDiagnostics } from "../diagnostics.js";
import { planPolicy } from "../plan/planner.js";
import type { Body } from "../rego/ast.js";
import { withCustomBuiltins } from "../rego/builtins.js";
import { mockedBuiltins } from "../rego/compile.js";
import { compileModules } from "../rego/index.js";
import { builtinArities } from "../wasm/emit/builtins.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";
import type { CompileOptions } from "./types.js";

/**
 * `toolgate check`: everything `build` reports, without emitting. The front end
 * reports nearly everything; planning every rule group as an entrypoint adds what
 * only planning can see (a builtin the backend lacks, called where no `with`
 * replaces it although one elsewhere does), so any `build` of these modules
 * reports no error that `check` does not.
 */
export function checkPolicy(opts: Pick<CompileOptions, "modules" | "builtins">): Diagnostic[] {
  const custom = opts.builtins === undefined ? {} : { builtins: opts.builtins };
  const front = compileModules(opts.modules, { supportedBuiltins: supportedBuiltins([], opts.builtins), ...custom });
  if (front.program === null) return front.errors;
  const program = front.program;
  const entrypoints = program.groups.filter((g) => g.kind !== "function").map((g) => g.path.slice(1).join("/"));
  const r = withCustomBuiltins(opts.builtins, () =>
    planPolicy({ program, files: opts.modules.map((m) => m.file), entrypoints, queries: [], builtins: builtinArities(opts.builtins) }),
  );
  return [...r.errors].sort(compareDiagnostics);
}

/** Builtins the backend calls (custom ones included), plus those a query replaces with `with` (their calls need no implementation). */
export function supportedBuiltins(queries: readonly { body: Body }[], custom: CustomBuiltins | undefined): Set<string> {
  return new Set([...builtinArities(custom).keys(), ...mockedBuiltins(queries.map((q) => q.body))]);
}

