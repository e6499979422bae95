import { formatDiagnostic } from "../../../codegen/diagnostics.js";
import { defaultEntrypoint } from "../default-entrypoint.js";
import type { RegisterCommand } from "./index.js";
import { policyBuiltinsForCommand } from "../policy-builtins.js";
import { regoVersionOf, V0_FLAG_HELP } from "./rego-version.js";

export const registerBuild: RegisterCommand = (program, setExitCode) => {
  program
    .command("build")
    .description("compile the Rego policies to WebAssembly (policy.wasm and an OPA-style bundle.tar.gz)")
    .option("--policies <dir>", "folder of .rego files (*_test.rego excluded) and data.json", "policies")
    .option("--out <dir>", "output folder", "generated")
    .option("-e, --entrypoint <path>", "rule path to expose, e.g. toolgate/authz/decision; repeatable (default: tools.yaml policy.entrypoint)", (v: string, acc: string[] | undefined) => [...(acc ?? []), v])
    .option("--check", "write nothing; exit 1 naming the stale files")
    .option("--optimize", "also run binaryen's optimiser over the generated functions (loads binaryen: slower; the default build links without it)")
    .option("--timings", "print the wall time of each step (loading the compiler, reading, every compiler stage, bundling, writing) to stderr")
    .option("--v0-compatible", V0_FLAG_HELP)
    .action(async (opts: { policies: string; out: string; entrypoint?: string[]; check?: boolean; optimize?: boolean; timings?: boolean; v0Compatible?: boolean }) => {
      // Loaded on run: `build --help` should not pay for the compiler (nor binaryen without --optimize).
      const t0 = performance.now();
      const { buildPolicy, formatTimings, loadOptimizer } = await import("../../../codegen/compiler/build.js");
      if (opts.optimize === true) await loadOptimizer();
      const loadMs = performance.now() - t0;
      const entrypoints = opts.entrypoint ?? [defaultEntrypoint()];
      const custom = await policyBuiltinsForCommand();
      if (custom === null) return setExitCode(1);
      const r = buildPolicy({ policies: opts.policies, out: opts.out, entrypoints, check: opts.check === true, optimize: opts.optimize === true, regoVersion: regoVersionOf(opts), ...custom });
      if (opts.timings === true) {
        const total = loadMs + r.timings.reduce((a, x) => a + x.ms, 0);
        console.error(formatTimings([{ stage: "load compiler", ms: loadMs }, ...r.timings, { stage: "total", ms: total }]));
      }
      switch (r.kind) {
        case "errors":
          for (const e of r.errors) console.error(formatDiagnostic(e));
          setExitCode(1);
          return;
        case "stale":
          console.error(`stale policy build output (run \`toolgate build\`):\n${r.files.map((f) => `  ${f}`).join("\n")}`);
          setExitCode(1);
          return;
        case "up_to_date":
          console.log(`${r.files.join(", ")} up to date`);
          return;
        case "written":
          console.log(`wrote ${r.files.join(", ")} (policy.wasm ${r.wasmBytes} bytes; entrypoints ${entrypoints.join(", ")})`);
      }
    });
};
