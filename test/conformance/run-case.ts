/**
 * Runs one conformance case: compile its modules with its query, evaluate through
 * the SDK, compare with the expectation the way OPA's own case runner does.
 */
import type { ConformanceCase } from "./cases.js";
import { compileWithQuery, evaluateWasm } from "./engine.js";
import { inputTermToJson } from "./input-term.js";
import { readBindings } from "./bindings.js";
import { resultSetsEqual, sortBindingValues } from "./values.js";

export type CaseStatus = "passed" | "failed" | "skipped";

export interface CaseOutcome {
  readonly id: string;
  readonly note: string;
  readonly topic: string;
  readonly status: CaseStatus;
  /** Why it failed or was skipped. */
  readonly reason?: string;
  /** What was expected and what came back, for `--verbose`. */
  readonly want?: string;
  readonly got?: string;
  readonly ms: number;
}

/** The entrypoint name the case's query is compiled under. */
export const queryEntrypoint = "conformance/query";

export type Got = { kind: "result"; bindings: Record<string, unknown>[] } | { kind: "error"; message: string };

export interface RunCaseOptions {
  /**
   * Run binaryen's optimiser on each case's module. It costs ~0.5 s per case and
   * only re-shapes code the emitter produced, so the full run leaves it off by
   * default and the fast subset in `npm test` turns it on.
   */
  readonly optimize?: boolean;
}

export async function runCase(c: ConformanceCase, opts: RunCaseOptions = {}): Promise<CaseOutcome> {
  const start = performance.now();
  const done = (status: CaseStatus, extra: Partial<CaseOutcome> = {}): CaseOutcome => ({
    id: c.id,
    note: c.note,
    topic: c.topic,
    status,
    ...extra,
    ms: Math.round(performance.now() - start),
  });

  let inputJson: string | undefined;
  if (c.inputTerm !== undefined) {
    const converted = inputTermToJson(c.inputTerm);
    if (!converted.ok) return done("failed", { reason: `input_term: ${converted.reason}` });
    inputJson = converted.json;
  } else if (c.input !== undefined) {
    inputJson = JSON.stringify(c.input);
  }

  const got = await produce(c, inputJson, opts.optimize === true);
  const want = describeWant(c);
  const gotText = got.kind === "error" ? `error: ${got.message}` : JSON.stringify(got.bindings);
  const verdict = judge(c, got);
  return verdict === null ? done("passed") : done("failed", { reason: verdict, want, got: gotText });
}

async function produce(c: ConformanceCase, inputJson: string | undefined, optimize: boolean): Promise<Got> {
  // File names as OPA's runner gives them; expected messages mention `test-0.rego`.
  const modules = c.modules.map((source, i) => ({ file: `test-${i}.rego`, source }));
  const compiled = await compileWithQuery(modules, queryEntrypoint, c.query, c.strictError, optimize);
  // A compile error is an error result: some cases expect errors the compiler finds.
  if (!compiled.ok) return { kind: "error", message: compiled.message };
  const evaluated = await evaluateWasm(compiled.wasm, queryEntrypoint, c.data, inputJson);
  if (!evaluated.ok) return { kind: "error", message: evaluated.message };
  const bindings = readBindings(evaluated.resultSet);
  if (!bindings.ok) return { kind: "error", message: `unexpected result set shape: ${bindings.reason}` };
  return { kind: "result", bindings: bindings.bindings };
}

/** null when the case passes, else a one-line reason. */
export function judge(c: ConformanceCase, got: Got): string | null {
  if (c.wantErrorCode !== undefined || c.wantError !== undefined) {
    if (got.kind !== "error") return `want an error, got result ${JSON.stringify(got.bindings)}`;
    if (c.wantErrorCode !== undefined && !errorCodes(got.message).includes(c.wantErrorCode)) {
      return `want error code ${c.wantErrorCode}, got: ${firstLine(got.message)}`;
    }
    if (c.wantError !== undefined && !messageContains(got.message, c.wantError)) {
      return `want error containing ${JSON.stringify(c.wantError)}, got: ${firstLine(got.message)}`;
    }
    return null;
  }
  if (got.kind === "error") return `unexpected error: ${firstLine(got.message)}`;
  const want = c.wantResult ?? [];
  return resultSetsEqual(want, got.bindings, c.sortBindings) ? null : "result differs";
}

/** Error codes named in a message (`... eval_type_error: ...`, `rego_parse_error`). */
export function errorCodes(message: string): string[] {
  return [...message.matchAll(/\b((?:eval|rego)_[a-z_]*error)\b/g)].map((m) => m[1]!);
}

/**
 * OPA prints a location as `file:row`, our runtime and compiler as `file:row:col`.
 * Expected texts that carry OPA's prefix are matched after dropping the column.
 */
export function messageContains(message: string, fragment: string): boolean {
  if (message.includes(fragment)) return true;
  return message.replace(/([\w./-]+\.rego:\d+):\d+:/g, "$1:").includes(fragment);
}

function describeWant(c: ConformanceCase): string {
  const parts: string[] = [];
  if (c.wantErrorCode !== undefined) parts.push(`error code ${c.wantErrorCode}`);
  if (c.wantError !== undefined) parts.push(`error containing ${JSON.stringify(c.wantError)}`);
  if (parts.length > 0) return parts.join(", ");
  const rs = c.wantResult ?? [];
  return JSON.stringify(c.sortBindings ? rs.map(sortBindingValues) : rs);
}

const firstLine = (s: string): string => s.split("\n")[0] ?? "";
