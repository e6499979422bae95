/** Pretty and JSON output of a test run (JSON: one object CI tools can read). */
import { formatDiagnostic } from "../diagnostics.js";
import { formatRanges } from "./coverage.js";
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

export function formatJson(report: RunReport): string {
  return JSON.stringify(
    {
      summary: countResults(report.results),
      errors: report.errors,
      results: report.results.map((r) => ({
        name: r.test.name,
        package: r.test.pkg,
        rule: r.test.rule,
        location: { file: r.test.file, row: r.test.row, col: r.test.col },
        status: r.status,
        duration_ms: Number(r.ms.toFixed(3)),
        ...(r.message === undefined ? {} : { message: r.message }),
        ...(r.output === undefined ? {} : { output: r.output }),
        ...(r.explanation === undefined ? {} : { failed_expression: r.explanation }),
      })),
      ...(report.coverage === undefined
        ? {}
        : {
            coverage: {
              percent: report.coverage.percent,
              covered_lines: report.coverage.covered,
              not_covered_lines: report.coverage.notCovered,
              files: Object.fromEntries(
                report.coverage.files.map((f) => [f.file, { percent: f.percent, covered: f.covered, not_covered: f.notCovered }]),
              ),
            },
          }),
      ...(report.coverageError === undefined ? {} : { coverage_error: report.coverageError }),
    },
    null,
    2,
  );
}
