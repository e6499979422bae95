/**
 * `toolgate check`'s look at tools.yaml: every `external_write` tool should have a reconcile
 * handler. Without one, a call that dies after its effect (a crash, a lost answer) never
 * reports its real outcome: after the lease it answers terminal_failure `timeout`. The
 * reconcilers are code (`createRuntime({ reconcilers })`), so `--handlers MODULE` names the
 * module that exports them; without it, check can only list the tools to look at.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Diagnostic } from "../../codegen/diagnostics.js";
import { parseYamlSource } from "../../codegen/toolsyaml/yaml-source.js";
import { importUserModule, isUserModuleError } from "./user-module.js";

export type ReconcilerCheck =
  | { readonly kind: "warnings"; readonly warnings: readonly Diagnostic[] }
  /** No --handlers: the external_write tools whose reconcilers check could not see. */
  | { readonly kind: "unverified"; readonly tools: readonly string[] }
  | { readonly kind: "error"; readonly message: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The external_write tools of `config` without a function in the handlers module's `reconcilers`. */
export async function checkReconcilers(config: string, handlersModule: string | undefined): Promise<ReconcilerCheck> {
  if (!existsSync(config)) return { kind: "warnings", warnings: [] };
  const { source } = parseYamlSource(readFileSync(config, "utf8"), config);
  // An unreadable tools.yaml is codegen's to report.
  if (source === null || !isRecord(source.value) || !isRecord(source.value.tools)) return { kind: "warnings", warnings: [] };
  const tools = source.value.tools;
  const external = Object.keys(tools).filter((name) => isRecord(tools[name]) && tools[name].effect === "external_write").sort();
  if (handlersModule === undefined) return external.length === 0 ? { kind: "warnings", warnings: [] } : { kind: "unverified", tools: external };
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(handlersModule);
  } catch (err) {
    const message = isUserModuleError(err) ? `${err.message}\n  hint: ${err.hint}` : err instanceof Error ? err.message : String(err);
    return { kind: "error", message: `${handlersModule}:1:1 handlers_module_error: ${message}` };
  }
  const reconcilers = isRecord(mod.reconcilers) ? mod.reconcilers : {};
  const warnings = external
    .filter((name) => typeof reconcilers[name] !== "function")
    .map((name): Diagnostic => ({
      code: "external_write_without_reconciler",
      message: `${name} is external_write and ${handlersModule} exports no reconciler for it: a call that dies after its effect answers terminal_failure timeout once its lease ends, never its real outcome`,
      location: source.locate(["tools", name, "effect"]),
      hint: `export reconcilers: { ${name}: async (args, ctx) => ... } that looks the effect up by ctx.operation_id (README: "Reconciling a call whose outcome is unknown")`,
    }));
  return { kind: "warnings", warnings };
}
