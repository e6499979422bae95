import { readFileSync, writeFileSync } from "node:fs";
import { formatDiagnostic } from "../../../codegen/diagnostics.js";
import { formatSource } from "../../../codegen/rego/format/index.js";
import { regoFilesOrReport } from "../rego-files.js";
import { regoVersionOf } from "./rego-version.js";
import type { RegisterCommand } from "./index.js";

interface FmtOptions {
  check?: boolean;
  write?: boolean;
  v0Compatible?: boolean;
}

export const registerFmt: RegisterCommand = (program, setExitCode) => {
  program
    .command("fmt")
    .description("format Rego files in canonical style (tabs, if, contains, :=); prints to stdout unless --check or -w")
    .argument("[paths...]", "files or folders of .rego files", ["policies"])
    .option("--check", "write nothing; list files that would change and exit 1 if any")
    .option("-w, --write", "rewrite files in place")
    .option("--v0-compatible", "read pre-1.0 Rego and print it as Rego v1 (with -w: rewrite v0 files to v1)")
    .addHelpText("after", "\nExamples:\n  toolgate fmt --check policies/\n  toolgate fmt -w policies/authz.rego")
    .action((paths: string[], opts: FmtOptions) => {
      if (opts.check === true && opts.write === true) {
        console.error("fmt: use either --check or -w, not both");
        setExitCode(2);
        return;
      }
      const files = regoFilesOrReport(paths, setExitCode);
      if (files === null) return;
      const changed: string[] = [];
      for (const file of files) {
        const result = formatSource(readFileSync(file, "utf8"), file, { regoVersion: regoVersionOf(opts) });
        if (!result.ok) {
          for (const d of result.errors) console.error(formatDiagnostic(d));
          setExitCode(1);
          continue;
        }
        if (result.changed) changed.push(file);
        if (opts.write === true) {
          if (result.changed) writeFileSync(file, result.text);
        } else if (opts.check !== true) process.stdout.write(result.text);
      }
      if (opts.check === true) {
        for (const f of changed) console.log(f);
        if (changed.length > 0) {
          console.error(`${changed.length} file${changed.length === 1 ? "" : "s"} not formatted (run \`toolgate fmt -w\`)`);
          setExitCode(1);
        }
      } else if (opts.write === true && changed.length > 0) {
        console.error(`formatted ${changed.length} file${changed.length === 1 ? "" : "s"}`);
      }
    });
};
