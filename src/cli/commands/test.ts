import { InvalidArgumentError } from "commander";
import { countResults, formatCoverageJson, formatJson, formatPretty, loadDataFiles, runPolicyTests } from "../../../codegen/policytest/index.js";
import { regoFilesOrReport } from "../rego-files.js";
import type { RegisterCommand } from "./index.js";
import { policyBuiltinsForCommand } from "../policy-builtins.js";
import { regoVersionOf, V0_FLAG_HELP } from "./rego-version.js";

interface TestOptions {
  run?: string;
  verbose?: boolean;
  coverage?: boolean;
  format: "pretty" | "json";
  threshold?: number;
  v0Compatible?: boolean;
}

const parseFormat = (v: string): "pretty" | "json" => {
  if (v !== "pretty" && v !== "json") throw new InvalidArgumentError("must be json or pretty");
  return v;
};
const parsePercent = (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError("must be a percentage from 0 to 100");
  return n;
};

export const registerTest: RegisterCommand = (program, setExitCode) => {
  program
    .command("test")
    .description("run the test_* rules of *_test.rego files through the compiled policy")
    .argument("[paths...]", "files or folders of .rego files (policy and tests)", ["policies"])
    .option("--run <regex>", "run only tests whose name (data.<package>.<rule>) matches")
    .option("-v, --verbose", "print every test and the value a failing test produced")
    .option("--coverage", "report covered and not-covered lines per file")
    .option("--format <format>", "output format: pretty or json", parseFormat, "pretty")
    .option("--v0-compatible", V0_FLAG_HELP)
    .option("--threshold <pct>", "fail when total coverage is below this percentage (implies --coverage)", parsePercent)
    .addHelpText("after", "\nExit code 1 when a test fails or errors, the modules do not compile, or coverage is below --threshold.\n\nExamples:\n  toolgate test policies/ --coverage\n  toolgate test policies/ --run 'approval' -v")
    .action(async (paths: string[], opts: TestOptions) => {
      let run: RegExp | undefined;
      try {
        run = opts.run === undefined ? undefined : new RegExp(opts.run);
      } catch (err) {
        console.error(`test: --run: ${(err as Error).message}`);
        setExitCode(2);
        return;
      }
      const files = regoFilesOrReport(paths, setExitCode);
      if (files === null) return;
      const coverage = opts.coverage === true || opts.threshold !== undefined;
      const data = loadDataFiles(paths);
      if (data.errors.length > 0) {
        for (const d of data.errors) console.error(`${d.location.file} ${d.code}: ${d.message}`);
        setExitCode(1);
        return;
      }
      const custom = await policyBuiltinsForCommand();
      if (custom === null) return setExitCode(1);
      const report = await runPolicyTests({ files, coverage, data: data.data, explain: opts.verbose === true, regoVersion: regoVersionOf(opts), ...custom, ...(run === undefined ? {} : { run }) });
      // As `opa test`: with --coverage the JSON output is the coverage report, else the array of results.
      if (opts.format !== "json") console.log(formatPretty(report, opts.verbose === true));
      else if (coverage && report.coverage !== undefined && report.errors.length === 0) console.log(formatCoverageJson(report.coverage));
      else console.log(formatJson(report));
      if (opts.format === "json" && report.coverageError !== undefined) console.error(`coverage: ${report.coverageError}`);

      const c = countResults(report.results);
      if (report.errors.length > 0 || c.fail > 0 || c.error > 0) setExitCode(1);
      if (report.errors.length === 0 && c.total === 0) {
        console.error(`no tests found in ${paths.join(", ")}${run === undefined ? "" : ` matching --run ${opts.run}`}`);
        setExitCode(1);
      }
      if (coverage && report.coverage === undefined && c.total > c.skip) setExitCode(1);
      if (opts.threshold !== undefined && report.coverage !== undefined && report.coverage.percent < opts.threshold) {
        console.error(`coverage ${report.coverage.percent.toFixed(1)}% is below the threshold ${opts.threshold}%`);
        setExitCode(1);
      }
    });
};
