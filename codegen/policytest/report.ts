/** Pretty and JSON output of a test run; the JSON has the shapes of `opa test --format json` and `opa test --coverage --format json`. */
import { formatDiagnostic } from "../diagnostics.js";
import { formatRanges } from "./coverage.js";
import type { CoverageReport } from "./coverage.js";
import type { RunReport, TestResult, TestStatus } from "./run.js";

const label: Record<TestStatus, string> = { pass: "PASS", fail: "FAIL", error: "ERROR", skip: "SKIPPED" };

export interface Counts {
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  readonly skip: number;
  readonly total: number;
}

export function countResults(results: readonly TestResult[]): Counts {
  const n = (s: TestStatus): number => results.filter((r) => r.status === s).length;
  return { pass: n("pass"), fail: n("fail"), error: n("error"), skip: n("skip"), total: results.length };
}

const duration = (ms: number): string => (ms < 1 ? `${Math.round(ms * 1000)}µs` : `${ms.toFixed(1)}ms`);

/** Failures and errors always; every result with `verbose`. */
export function formatPretty(report: RunReport, verbose: boolean): string {
  const out: string[] = [];
  for (const d of report.errors) out.push(formatDiagnostic(d));
  let lastFile = "";
  for (const r of report.results) {
    if (!verbose && (r.status === "pass" || r.status === "skip")) {
      // print() output is shown even for a passing test, as it was written while running.
      for (const line of r.output ?? []) out.push(line);
      continue;
    }
    if (r.test.file !== lastFile) {
      if (out.length > 0) out.push("");
      out.push(`${r.test.file}:`);
      lastFile = r.test.file;
    }
    const at = `${r.test.file}:${r.test.row}`;
    out.push(`${r.test.name}: ${label[r.status]} (${duration(r.ms)})${r.status === "pass" || r.status === "skip" ? "" : `  ${at}`}`);
    if (r.message !== undefined && (r.status === "error" || verbose)) out.push(`  ${r.message}`);
    for (const line of r.output ?? []) out.push(`  ${line}`);
    if (r.explanation !== undefined) {
      out.push(`  failed at ${r.explanation.at}: ${r.explanation.expr}`);
      for (const [k, v] of Object.entries(r.explanation.bindings)) out.push(`    ${k} = ${JSON.stringify(v)}`);
    }
  }
  const c = countResults(report.results);
  if (report.errors.length === 0) {
    out.push("-".repeat(80));
    for (const s of ["pass", "fail", "error", "skip"] as const) {
      if (c[s] > 0 || s === "pass") out.push(`${label[s]}: ${c[s]}/${c.total}`);
    }
  }
  if (report.coverage !== undefined) {
    out.push("", "coverage:");
    for (const f of report.coverage.files) {
      const missing = f.notCovered.length > 0 ? `  not covered: ${formatRanges(f.notCovered)}` : "";
      out.push(`  ${f.file}: ${f.percent.toFixed(1)}% (${f.covered.length}/${f.covered.length + f.notCovered.length} lines)${missing}`);
    }
    out.push(`  total: ${report.coverage.percent.toFixed(1)}%`);
  }
  if (report.coverageError !== undefined) out.push(`coverage: ${report.coverageError}`);
  return out.join("\n");
}

/** One test in `opa test --format json`'s shape (OPA's tester.Result): duration in nanoseconds, `output` base64. */
interface OpaTestResult {
  readonly location: { readonly file: string; readonly row: number; readonly col: number };
  readonly package: string;
  readonly name: string;
  readonly fail?: true;
  readonly error?: { readonly code: string; readonly message: string };
  readonly skip?: true;
  readonly duration: number;
  readonly output?: string;
}

function opaResult(r: TestResult): OpaTestResult {
  return {
    location: { file: r.test.file, row: r.test.row, col: r.test.col },
    package: r.test.pkg,
    name: r.test.rule,
    ...(r.status === "fail" ? { fail: true as const } : {}),
    ...(r.status === "error" ? { error: { code: /\b([a-z_]+_error):/.exec(r.message ?? "")?.[1] ?? "eval_error", message: r.message ?? "error" } } : {}),
    ...(r.status === "skip" ? { skip: true as const } : {}),
    duration: Math.round(r.ms * 1e6),
    ...(r.output === undefined ? {} : { output: Buffer.from(r.output.map((line) => `${line}\n`).join(""), "utf8").toString("base64") }),
  };
}

/** Consecutive rows as OPA's coverage ranges: `[3, 4, 5, 9]` -> `[{start:{row:3},end:{row:5}}, {start:{row:9},end:{row:9}}]`. */
function opaRanges(rows: readonly number[]): { start: { row: number }; end: { row: number } }[] {
  const out: { start: { row: number }; end: { row: number } }[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] === rows[j]! + 1) j++;
    out.push({ start: { row: rows[i]! }, end: { row: rows[j]! } });
    i = j + 1;
  }
  return out;
}

/**
 * `opa test --format json`: the array of results (OPA's tester.Result shape). When the
 * modules do not compile: `{ errors }` with the diagnostics, as OPA reports compile errors.
 */
export function formatJson(report: RunReport): string {
  if (report.errors.length > 0) return JSON.stringify({ errors: report.errors }, null, 2);
  return JSON.stringify(report.results.map(opaResult), null, 2);
}

/**
 * `opa test --coverage --format json`: OPA's cover.Report — per file the covered and
 * not-covered row ranges, line counts and percentage (empty and zero fields left out, as
 * OPA's omitempty does), and the totals.
 */
export function formatCoverageJson(coverage: CoverageReport): string {
  const files: Record<string, Record<string, unknown>> = {};
  for (const f of coverage.files) {
    files[f.file] = {
      ...(f.covered.length === 0 ? {} : { covered: opaRanges(f.covered) }),
      ...(f.notCovered.length === 0 ? {} : { not_covered: opaRanges(f.notCovered) }),
      ...(f.covered.length === 0 ? {} : { covered_lines: f.covered.length }),
      ...(f.notCovered.length === 0 ? {} : { not_covered_lines: f.notCovered.length }),
      ...(f.covered.length === 0 ? {} : { coverage: f.percent }),
    };
  }
  return JSON.stringify({ files, covered_lines: coverage.covered, not_covered_lines: coverage.notCovered, coverage: coverage.covered + coverage.notCovered === 0 ? 0 : coverage.percent }, null, 2);
}
