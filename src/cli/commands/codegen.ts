import { formatDiagnostic } from "../../../codegen/diagnostics.js";
import { runCodegen } from "../../../codegen/codegen.js";
import { maxDiagnostics } from "../../../codegen/toolsyaml/index.js";
import type { RegisterCommand } from "./index.js";

export const registerCodegen: RegisterCommand = (program, setExitCode) => {
  program
    .command("codegen")
    .description("generate typed TypeScript (types, handler interfaces, validators, manifest) from tools.yaml")
    .option("-c, --config <file>", "the tools file", "tools.yaml")
    .option("-o, --out <dir>", "output folder", "generated")
    .option("--check", "write nothing; exit 1 if the output folder is stale")
    .action(async (opts: { config: string; out: string; check?: boolean }) => {
      const result = await runCodegen({ config: opts.config, out: opts.out, check: opts.check === true });
      for (const w of result.warnings) console.error(`warning: ${formatDiagnostic(w)}`);
      switch (result.kind) {
        case "errors":
          for (const e of result.errors) console.error(formatDiagnostic(e));
          console.error(`${result.errors.length} problem${result.errors.length === 1 ? "" : "s"} in ${opts.config}${result.errors.length >= maxDiagnostics ? " (stopped at the cap)" : ""}`);
          setExitCode(1);
          return;
        case "stale":
          console.error(`stale generated files (run \`toolgate codegen\`):\n${result.files.map((f) => `  ${f}`).join("\n")}`);
          setExitCode(1);
          return;
        case "up_to_date":
          console.log(`${opts.out}/ is up to date with ${opts.config} (${result.files.length} files)`);
          return;
        case "written":
          console.log(`wrote ${result.files.length} files to ${opts.out}/`);
      }
    });
};
