import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { formatDiagnostic } from "../../../codegen/diagnostics.js";
import { checkPolicy } from "../../../codegen/compiler/check.js";
import { checkErrorClassesFile } from "../../../codegen/toolsyaml/error-classes.js";
import type { RegisterCommand } from "./index.js";
import { policyBuiltinsForCommand } from "../policy-builtins.js";
import { checkReconcilers } from "../reconciler-check.js";
import { regoVersionOf, withV0Option } from "./rego-version.js";

/** Every `.rego` file under the given files/folders, sorted, each once. */
function regoFiles(paths: readonly string[]): { files: string[]; missing: string[] } {
  const files = new Set<string>();
  const missing: string[] = [];
  const walk = (p: string): void => {
    let st;
    try {
      st = statSync(p);
    } catch {
      missing.push(p);
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) {
        if (name.startsWith(".") || name === "node_modules") continue;
        const child = join(p, name);
        if (statSync(child).isDirectory() || name.endsWith(".rego")) walk(child);
      }
    } else files.add(p);
  };
  for (const p of paths) walk(p);
  return { files: [...files].sort(), missing };
}

export const registerCheck: RegisterCommand = (program, setExitCode) => {
  const cmd = program
    .command("check")
    .description("parse and check Rego policies (safety, recursion, types, compile errors) without building, and tools.yaml's `errors:` classes")
    .argument("[paths...]", "files or folders holding .rego files", ["policies"])
    .option("--config <file>", "tools.yaml: warns about external_write tools without a reconcile handler", "tools.yaml")
    .option("--handlers <module>", "the module exporting `handlers` and `reconcilers` (.js or .ts), to check every external_write tool has a reconciler");
  withV0Option(cmd)
    .action(async (paths: string[], opts: { v0Compatible?: boolean; config: string; handlers?: string }) => {
      const regoVersion = regoVersionOf(opts);
      const { files, missing } = regoFiles(paths);
      for (const m of missing) console.error(`${m}: no such file or folder`);
      if (missing.length > 0) {
        setExitCode(1);
        return;
      }
      if (files.length === 0) {
        console.error(`no .rego files in ${paths.join(", ")}`);
        setExitCode(1);
        return;
      }
      const custom = await policyBuiltinsForCommand();
      if (custom === null) return setExitCode(1);
      // The thrown-error classes of tools.yaml (the rest of the file is codegen's to check).
      const toolsErrors = existsSync(opts.config) ? checkErrorClassesFile(opts.config) : [];
      const errors = [...toolsErrors, ...checkPolicy({ modules: files.map((file) => ({ file, source: readFileSync(file, "utf8"), regoVersion })), ...custom })];
      for (const e of errors) console.error(formatDiagnostic(e));
      if (errors.length > 0) {
        console.error(`${errors.length} problem${errors.length === 1 ? "" : "s"} in ${files.length} file${files.length === 1 ? "" : "s"}`);
        setExitCode(1);
        return;
      }
      console.log(`${files.length} file${files.length === 1 ? "" : "s"} checked, no problems`);
      const reconcile = await checkReconcilers(opts.config, opts.handlers);
      if (reconcile.kind === "error") {
        console.error(reconcile.message);
        setExitCode(1);
      } else if (reconcile.kind === "unverified") {
        console.log(`note: external_write tools ${reconcile.tools.join(", ")}: pass --handlers MODULE to check that each has a reconcile handler`);
      } else for (const w of reconcile.warnings) console.error(`warning: ${formatDiagnostic(w)}`);
    });
};
