/**
 * `toolgate build`'s work, without the CLI: compile the policies folder to
 * `<out>/policy.wasm` and `<out>/bundle.tar.gz`, or (check mode) report which of
 * those files are stale.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Diagnostic } from "../diagnostics.js";
import { bundleBytes } from "./bundle.js";
import { compilePolicy } from "./index.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";
import type { RegoVersion, StageTiming } from "./types.js";

export { loadOptimizer } from "../wasm/link/optimize.js";

export interface BuildOptions {
  readonly policies: string;
  readonly out: string;
  readonly entrypoints: readonly string[];
  readonly check: boolean;
  /** "v0": the policies are pre-1.0 Rego. */
  readonly regoVersion?: RegoVersion;
  /** Custom builtins (tools.yaml `policy.builtins`). */
  readonly builtins?: CustomBuiltins;
  /** Run binaryen over the generated functions (`await loadOptimizer()` first). */
  readonly optimize?: boolean;
}

/** Every result carries the wall time of each step: reading the sources, the compiler's stages, bundling, writing. */
export type BuildResult = (
  | { readonly kind: "errors"; readonly errors: Diagnostic[] }
  | { readonly kind: "stale"; readonly files: string[] }
  | { readonly kind: "up_to_date"; readonly files: string[] }
  | { readonly kind: "written"; readonly files: string[]; readonly wasmBytes: number }
) & { readonly timings: readonly StageTiming[] };

/** `.rego` files under `dir` except `*_test.rego`, sorted. */
export function policyFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith(".")) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".rego") && !name.endsWith("_test.rego")) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Base data for the bundle: `<policies>/data.json` when present, else `{}`. */
export function policyData(dir: string): unknown {
  const p = join(dir, "data.json");
  return existsSync(p) ? (JSON.parse(readFileSync(p, "utf8")) as unknown) : {};
}

export function buildPolicy(opts: BuildOptions): BuildResult {
  const timings: StageTiming[] = [];
  let t = performance.now();
  const step = (stage: string): void => {
    const now = performance.now();
    timings.push({ stage, ms: now - t });
    t = now;
  };
  if (!existsSync(opts.policies)) {
    return { kind: "errors", errors: [{ code: "file_unreadable", message: `no such folder ${opts.policies}`, location: { file: opts.policies, row: 1, col: 1 } }], timings };
  }
  const files = policyFiles(opts.policies);
  const version = opts.regoVersion === undefined ? {} : { regoVersion: opts.regoVersion };
  const modules = files.map((f) => ({ file: relative(process.cwd(), f) || f, source: readFileSync(f, "utf8"), ...version }));
  step("read");
  const r = compilePolicy({ modules, entrypoints: opts.entrypoints, optimize: opts.optimize === true, ...(opts.builtins === undefined ? {} : { builtins: opts.builtins }) });
  timings.push(...r.timings);
  t = performance.now();
  if (r.wasm === null) return { kind: "errors", errors: r.errors, timings };
  let data: unknown;
  try {
    data = policyData(opts.policies);
  } catch (e) {
    const file = join(opts.policies, "data.json");
    return { kind: "errors", errors: [{ code: "invalid_json", message: `${file}: ${(e as Error).message}`, location: { file, row: 1, col: 1 } }], timings };
  }
  const outputs: [string, Uint8Array][] = [
    [join(opts.out, "policy.wasm"), r.wasm],
    [join(opts.out, "bundle.tar.gz"), bundleBytes({ wasm: r.wasm, data, entrypoints: opts.entrypoints, ...(opts.regoVersion === undefined ? {} : { regoVersion: opts.regoVersion }) })],
  ];
  step("bundle");
  if (opts.check) {
    const stale = outputs.filter(([p, bytes]) => !existsSync(p) || !Buffer.from(readFileSync(p)).equals(Buffer.from(bytes))).map(([p]) => p);
    step("compare");
    return stale.length > 0 ? { kind: "stale", files: stale, timings } : { kind: "up_to_date", files: outputs.map(([p]) => p), timings };
  }
  mkdirSync(opts.out, { recursive: true });
  for (const [p, bytes] of outputs) writeFileSync(p, bytes);
  step("write");
  return { kind: "written", files: outputs.map(([p]) => p), wasmBytes: r.wasm.byteLength, timings };
}

/** The timings as `toolgate build --timings` prints them: one stage a line, phases indented. */
export function formatTimings(timings: readonly StageTiming[]): string {
  const lines: string[] = [];
  const add = (ts: readonly StageTiming[], indent: string): void => {
    for (const x of ts) {
      lines.push(`${indent}${x.stage.padEnd(16 - indent.length)} ${x.ms.toFixed(1).padStart(9)} ms`);
      if (x.parts !== undefined) add(x.parts, `${indent}  `);
    }
  };
  add(timings, "");
  return lines.join("\n");
}
