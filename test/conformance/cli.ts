/**
 * `npm run conformance -- [DIR] [--filter REGEX] [--verbose] [--timeout MS]`
 * Runs OPA's YAML cases through the project's compiler and the opa-wasm SDK.
 * The last line is always `conformance: N passed, N failed, N skipped`.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadCases } from "./cases.js";
import { loadSkips } from "./skips.js";
import { runCasesIsolated } from "./pool.js";
import type { CaseOutcome } from "./run-case.js";
import { formatReport, passRate, summarize, summaryLine } from "./report.js";
import { raiseFloor, readFloor } from "./floor.js";
import { conformanceDirMissing, defaultCaseDir } from "../helpers/conformance-dir.js";
import { pickFastSubset, writeFastSubset } from "./fast-subset.js";

const usage = `usage: npm run conformance -- [DIR] [options]

DIR defaults to $TOOLGATE_CONFORMANCE_DIR, else ../shared/conformance/opa-v1
(any directory of OPA YAML cases works).

options:
  --filter REGEX       run only cases whose note or id matches
  --verbose            print every failure with expected and actual values
  --timeout MS         per-case time limit (default 10000)
  --optimize           also run binaryen's optimiser on every case (slow: ~0.5 s each)
  --skips FILE         skip list (default test/conformance/skips.yaml)
  --raise-floor        raise test/conformance/floor.json to this run's pass rate
  --write-fast-subset  rewrite test/conformance/fast-subset.json from passing cases
The floor is enforced only on a full, unfiltered run of the default directory.`;


async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        filter: { type: "string" },
        verbose: { type: "boolean", short: "v", default: false },
        optimize: { type: "boolean", default: false },
        timeout: { type: "string", default: "10000" },
        skips: { type: "string" },
        "raise-floor": { type: "boolean", default: false },
        "write-fast-subset": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values: o, positionals } = args;
  if (o.help) {
    console.log(usage);
    return 0;
  }
  const timeoutMs = Number(o.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || positionals.length > 1) {
    console.error(usage);
    return 2;
  }
  const dir = resolve(positionals[0] ?? defaultCaseDir);
  const missing = conformanceDirMissing(dir);
  if (missing !== null) {
    console.error(missing);
    return 1;
  }
  const filter = o.filter === undefined ? undefined : new RegExp(o.filter);
  const skips = loadSkips(o.skips);

  const all = loadCases(dir);
  const selected = filter === undefined ? all : all.filter((c) => filter.test(c.note) || filter.test(c.id));
  const skipped: CaseOutcome[] = [];
  const toRun = selected.filter((c) => {
    const reason = skips.get(c.id);
    if (reason !== undefined) skipped.push({ id: c.id, note: c.note, topic: c.topic, status: "skipped", reason, ms: 0 });
    return reason === undefined;
  });

  const ran = await runCasesIsolated(toRun, {
    timeoutMs,
    optimize: o.optimize,
    onOutcome: (out) => {
      if (out.status === "failed" && o.verbose) {
        console.log(`FAIL ${out.id} (${out.note}): ${out.reason ?? ""}`);
        if (out.want !== undefined) console.log(`  want: ${out.want}`);
        if (out.got !== undefined) console.log(`  got:  ${out.got}`);
      }
    },
  });
  const outcomes = [...ran, ...skipped];
  const summary = summarize(outcomes);
  console.log(formatReport(summary));

  const rate = passRate(summary.total);
  let code = 0;
  const fullRun = filter === undefined && dir === defaultCaseDir;
  if (fullRun) {
    const floor = readFloor();
    if (rate < floor) {
      console.log(`pass rate ${rate.toFixed(1)}% is below the floor ${floor}% (test/conformance/floor.json)`);
      code = 1;
    } else if (o["raise-floor"]) {
      console.log(`floor: ${raiseFloor(rate)}%`);
    }
    if (o["write-fast-subset"]) writeFastSubset(pickFastSubset(outcomes, 2));
  } else if (o["raise-floor"] || o["write-fast-subset"]) {
    console.log("--raise-floor and --write-fast-subset need a full run of the default directory");
    code = 2;
  }
  console.log(summaryLine(summary.total));
  return code;
}

process.exitCode = await main(process.argv.slice(2));
