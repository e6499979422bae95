/**
 * Loads tools.yaml `policy.builtins` for the commands that compile or evaluate Rego
 * (check, build, test, eval, and the engines of demo and mcp), and registers the
 * builtins the build tools provide (`rego.parse_module`) for the first four. Every problem is a
 * located diagnostic: a missing or failing module at the tools.yaml line naming it, a
 * malformed declaration at the builtin's name in the module.
 */
import { existsSync, readFileSync } from "node:fs";
import { formatDiagnostic, type Diagnostic, type SourceLocation } from "../../codegen/diagnostics.js";
import { registerParseModule } from "../../codegen/rego-json/parse-module.js";
import type { PolicyBuiltinsRef } from "../../codegen/toolsyaml/policy-builtins.js";
import { loadPolicySection } from "../../codegen/toolsyaml/policy-section.js";
import { isCustomBuiltinError, toCustomBuiltins, type CustomBuiltinError, type CustomBuiltins } from "../policy/builtins/index.js";
import { importUserModule } from "./user-module.js";

export interface PolicyBuiltinsLoad {
  /** Undefined when tools.yaml declares none (or there is no tools.yaml). */
  readonly builtins: CustomBuiltins | undefined;
  readonly errors: Diagnostic[];
}

/**
 * For a command: the custom builtins, or null after printing each problem (the command
 * then exits 1). `{}` when none are declared.
 */
export async function policyBuiltinsForCommand(): Promise<{ builtins?: CustomBuiltins } | null> {
  // These commands run with the build tools loaded: the builtins needing the parser work here.
  registerParseModule();
  const r = await loadPolicyBuiltins();
  for (const e of r.errors) console.error(formatDiagnostic(e));
  if (r.errors.length > 0) return null;
  return r.builtins === undefined ? {} : { builtins: r.builtins };
}

/** Thrown by projectPolicyBuiltins: the message lists every located problem. */
export class PolicyBuiltinsError extends Error {
  override name = "PolicyBuiltinsError";
}

/** For an engine of the project (mcp, approvals): the custom builtins, or a PolicyBuiltinsError. */
export async function projectPolicyBuiltins(): Promise<{ builtins?: CustomBuiltins }> {
  const r = await loadPolicyBuiltins();
  if (r.errors.length > 0) throw new PolicyBuiltinsError(r.errors.map(formatDiagnostic).join("\n"));
  return r.builtins === undefined ? {} : { builtins: r.builtins };
}

/** The custom builtins tools.yaml (in the working directory unless given) declares. */
export async function loadPolicyBuiltins(toolsFile = "tools.yaml"): Promise<PolicyBuiltinsLoad> {
  if (!existsSync(toolsFile)) return { builtins: undefined, errors: [] };
  // Only the policy section: other tools.yaml problems are the business of `codegen`.
  const r = loadPolicySection(toolsFile);
  if (r.errors.length > 0) return { builtins: undefined, errors: r.errors };
  const ref = r.builtins;
  return ref === null ? { builtins: undefined, errors: [] } : loadPolicyBuiltinsModule(ref);
}

export async function loadPolicyBuiltinsModule(ref: PolicyBuiltinsRef): Promise<PolicyBuiltinsLoad> {
  const fail = (code: string, message: string, location: SourceLocation, hint: string): PolicyBuiltinsLoad => ({
    builtins: undefined,
    errors: [{ code, message, location, hint }],
  });
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(ref.path);
  } catch (err) {
    // defineBuiltins throws while the module is evaluated: point at the declaration.
    if (isCustomBuiltinError(err)) return invalid(ref, err);
    const why = err instanceof Error ? err.message : String(err);
    return fail("policy_builtins_unloadable", `policy.builtins: ${ref.module} does not load: ${why}`, ref.location, "fix the module so that it imports (the error above is what Node reported)");
  }
  const exported = mod.default ?? mod.builtins;
  if (exported === undefined) {
    return fail("policy_builtins_invalid", `${ref.module} exports no custom builtins (a default export or an export named builtins)`, { file: ref.path, row: 1, col: 1 }, HINT);
  }
  try {
    return { builtins: toCustomBuiltins(exported), errors: [] };
  } catch (err) {
    if (!isCustomBuiltinError(err)) throw err;
    return invalid(ref, err);
  }
}

const HINT = 'export default defineBuiltins({ "acme.lookup": { args: ["string"], result: "any", impl: (s) => ... } }) (defineBuiltins from "toolgate")';

function invalid(ref: PolicyBuiltinsRef, err: CustomBuiltinError): PolicyBuiltinsLoad {
  const start = { file: ref.path, row: 1, col: 1 };
  const location = err.builtin === null ? start : nameLocation(ref.path, err.builtin) ?? start;
  return { builtins: undefined, errors: [{ code: "policy_builtins_invalid", message: err.message, location, hint: HINT }] };
}

/** Where the module first writes the builtin's name as a string literal. */
function nameLocation(file: string, name: string): SourceLocation | null {
  const text = readFileSync(file, "utf8");
  const quoted = [`"${name}"`, `'${name}'`, `\`${name}\``].map((q) => text.indexOf(q)).filter((i) => i >= 0);
  if (quoted.length === 0) return null;
  const at = Math.min(...quoted);
  const before = text.slice(0, at).split("\n");
  return { file, row: before.length, col: before[before.length - 1]!.length + 1 };
}
