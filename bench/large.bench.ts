// npm run bench:large — a large generated policy (bench/large/policy.ts) over inputs
// with objects of 10^4..10^5 keys, through the unmodified opa-wasm SDK: time per
// evaluation (median of ROUNDS, interleaved) and the Wasm memory it leaves, for
// toolgate's runtime library next to a baseline library (default: the library before
// hashed collections) linked into the same generated code in the same process; and
// rules referenced inside loops (the quadratic pattern) with and without rule-value
// memoisation, compiled in the same process.
//
//   SIZES=10000,100000 RULES=20 ROUNDS=3 QUADRATIC=1000,3000 TOOLGATE_LARGE_BASELINE=<git ref | file.wasm> npm run bench:large
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import { emitPolicy } from "../codegen/wasm/emit/index.js";
import { useRuntimeBytes } from "../codegen/wasm/runtime-link.js";
import { hostBuiltins } from "../src/policy/host-builtins/index.js";
import type { BenchRow, RowSource } from "./rows.js";
import { policyInputs } from "../test/helpers/policy-inputs.js";
import { ENTRYPOINT, FLOOR_ENTRYPOINT, largeInput, largePolicy, QUADRATIC_ENTRYPOINT } from "./large/policy.js";

/** One measured figure next to its baseline from the same run. */
export interface LargeRow {
  readonly what: string;
  readonly unit: string;
  readonly toolgate: number;
  readonly anchor: string;
  readonly anchorValue: number | null;
  /** anchorValue / toolgate for times and sizes (> 1: toolgate is better); null without an anchor. */
  readonly ratio: number | null;
}

export interface LargeOptions {
  readonly sizes?: readonly number[];
  readonly rules?: number;
  readonly rounds?: number;
  /** Input sizes of the quadratic-pattern rows ([] for none; the unmemoised anchor takes n^2). */
  readonly quadratic?: readonly number[];
  /** A git ref whose codegen/wasm/runtime.wasm is the baseline, or a .wasm file; "" for none. */
  readonly baseline?: string;
  readonly log?: (line: string) => void;
}

/** The commit before hashed objects and sets. */
export const DEFAULT_BASELINE = "18cfc3f";

function baselineBytes(ref: string): Uint8Array | null {
  if (ref === "") return null;
  if (ref.endsWith(".wasm") && existsSync(ref)) return new Uint8Array(readFileSync(ref));
  try {
    return new Uint8Array(execFileSync("git", ["show", `${ref}:codegen/wasm/runtime.wasm`], { maxBuffer: 1 << 26, stdio: ["ignore", "pipe", "ignore"] }));
  } catch {
    return null;
  }
}

/** The large policy linked against `runtime` (undefined: toolgate's); `memoize: false` recomputes rule values at every reference. */
function compile(source: string, runtime: Uint8Array | undefined, memoize = true): Uint8Array {
  useRuntimeBytes(runtime);
  try {
    const r = compilePolicy({ modules: [{ file: "large.rego", source }], entrypoints: [ENTRYPOINT, FLOOR_ENTRYPOINT, QUADRATIC_ENTRYPOINT], stopAfter: "plan" });
    if (r.plan === undefined || r.errors.length > 0) throw new Error(`the large policy does not compile: ${JSON.stringify(r.errors)}`);
    return emitPolicy(r.plan, { memoize });
  } finally {
    useRuntimeBytes(undefined);
  }
}

interface Contender {
  readonly label: string;
  readonly evaluate: (input: unknown, entrypoint?: string) => unknown;
  readonly memoryBytes: () => number;
}

async function contender(label: string, wasm: Uint8Array): Promise<Contender> {
  const p = await loadPolicy(wasm);
  const mem = (p as unknown as { mem: WebAssembly.Memory }).mem;
  return { label, evaluate: (input, ep = ENTRYPOINT) => p.evaluate(input, ep), memoryBytes: () => mem.buffer.byteLength };
}

/** CPU milliseconds of this process (the machine is shared: wall time counts other processes). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * policies/authz.rego through the SDK: small policies must not pay for the large-value
 * machinery (against the baseline library) nor for rule-value memoisation (against the
 * same code emitted without it).
 */
async function smallPolicyRows(base: Uint8Array | null, ref: string, rounds: number, log: (l: string) => void): Promise<LargeRow[]> {
  const source = readFileSync("policies/authz.rego", "utf8");
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as Record<string, unknown>;
  const entry = "toolgate/authz/decision";
  const build = async (runtime: Uint8Array | undefined, memoize = true): Promise<(i: unknown) => unknown> => {
    useRuntimeBytes(runtime);
    try {
      const r = compilePolicy({ modules: [{ file: "policies/authz.rego", source }], entrypoints: [entry], stopAfter: "plan" });
      if (r.plan === undefined || r.errors.length > 0) throw new Error(`authz.rego does not compile: ${JSON.stringify(r.errors)}`);
      const p = await loadPolicy(emitPolicy(r.plan, { memoize }), undefined, hostBuiltins);
      p.setData(data);
      return (i) => p.evaluate(i, entry);
    } finally {
      useRuntimeBytes(undefined);
    }
  };
  const inputs = policyInputs(512, 42);
  const subjects = [await build(undefined), await build(undefined, false), ...(base !== null ? [await build(base)] : [])];
  const batch = 5000;
  const times = subjects.map(() => [] as number[]);
  for (let r = 0; r < rounds + 2; r++) {
    subjects.forEach((ev, i) => {
      const t = cpuMs();
      for (let k = 0; k < batch; k++) ev(inputs[k & 511]);
      if (r >= 2) times[i]!.push(((cpuMs() - t) * 1000) / batch);
    });
  }
  const [us, noMemo, baseUs] = times.map(median) as [number, number, number | undefined];
  log(`policies/authz.rego, SDK evaluate(): toolgate ${us.toFixed(2)} µs/decision, no rule-value memo ${noMemo.toFixed(2)} µs${baseUs !== undefined ? `, runtime ${ref} ${baseUs.toFixed(2)} µs` : ""}`);
  const what = "policies/authz.rego: CPU time per SDK decision";
  return [
    { what, unit: "µs", toolgate: us, anchor: base !== null ? `runtime ${ref}` : "none", anchorValue: baseUs ?? null, ratio: baseUs !== undefined ? baseUs / us : null },
    { what: `${what} (vs no rule-value memo)`, unit: "µs", toolgate: us, anchor: "no rule-value memo", anchorValue: noMemo, ratio: noMemo / us },
  ];
}

export async function largeRows(opts: LargeOptions = {}): Promise<LargeRow[]> {
  const sizes = opts.sizes ?? [10_000, 100_000];
  const rules = opts.rules ?? 20;
  const rounds = opts.rounds ?? 3;
  const log = opts.log ?? (() => undefined);
  const ref = opts.baseline ?? DEFAULT_BASELINE;
  const source = largePolicy(rules);
  const base = baselineBytes(ref);
  if (base === null && ref !== "") log(`baseline ${ref}: no runtime.wasm found there; toolgate only`);
  const rows: LargeRow[] = await smallPolicyRows(base, ref, Math.max(rounds, 5), log);
  for (const n of sizes) {
    const input = largeInput(n, rules);
    // fresh instances per size: the memory figure is what this size needs
    const subjects = [await contender("toolgate", compile(source, undefined))];
    if (base !== null) subjects.push(await contender(`runtime ${ref}`, compile(source, base)));
    const results = subjects.map((s) => JSON.stringify(s.evaluate(input)));
    for (let i = 1; i < results.length; i++) {
      if (results[i] !== results[0]) throw new Error(`${subjects[i]!.label} disagrees at n=${n}:\n${results[i]}\n${results[0]}`);
    }
    // warm-up: V8 runs new Wasm code in its baseline tier first
    for (let w = 0; w < 2; w++) for (const s of subjects) s.evaluate(input);
    const times = subjects.map(() => [] as number[]);
    const floors = subjects.map(() => [] as number[]);
    for (let r = 0; r < rounds; r++) {
      subjects.forEach((s, i) => {
        let t = cpuMs();
        s.evaluate(input);
        times[i]!.push(cpuMs() - t);
        t = cpuMs();
        s.evaluate(input, FLOOR_ENTRYPOINT);
        floors[i]!.push(cpuMs() - t);
      });
    }
    const ms = times.map(median);
    const floor = floors.map(median);
    const net = ms.map((m, i) => Math.max(0, m - floor[i]!));
    const mib = subjects.map((s) => s.memoryBytes() / 2 ** 20);
    const json = JSON.stringify(input).length;
    log(`n=${n} resources (${(json / 2 ** 20).toFixed(1)} MiB of JSON), ${rules} kind rules: ${results[0]}`);
    subjects.forEach((s, i) =>
      log(`  ${s.label.padEnd(22)} ${ms[i]!.toFixed(1).padStart(9)} ms/evaluation (floor: input in, nothing read ${floor[i]!.toFixed(1)} ms; net ${net[i]!.toFixed(1)} ms)  ${mib[i]!.toFixed(0).padStart(5)} MiB Wasm memory`),
    );
    const anchor = subjects[1]?.label ?? "none";
    const ratio = (a: number | undefined, b: number): number | null => (a === undefined ? null : a / b);
    rows.push({ what: `large policy, ${n} keys: CPU time per evaluation`, unit: "ms", toolgate: ms[0]!, anchor, anchorValue: ms[1] ?? null, ratio: ratio(ms[1], ms[0]!) });
    rows.push({ what: `large policy, ${n} keys: same minus the input floor`, unit: "ms", toolgate: net[0]!, anchor, anchorValue: net[1] ?? null, ratio: ratio(net[1], net[0]!) });
    rows.push({ what: `large policy, ${n} keys: Wasm memory`, unit: "MiB", toolgate: mib[0]!, anchor, anchorValue: mib[1] ?? null, ratio: ratio(mib[1], mib[0]!) });
  }
  for (const n of opts.quadratic ?? [1_000, 3_000]) rows.push(await quadraticRow(source, n, rules, rounds, log));
  return rows;
}

/** Rules referenced inside loops over the input: toolgate next to the same code without rule-value memoisation. */
async function quadraticRow(source: string, n: number, rules: number, rounds: number, log: (l: string) => void): Promise<LargeRow> {
  const input = largeInput(n, rules);
  const subjects = [await contender("toolgate", compile(source, undefined)), await contender("no rule-value memo", compile(source, undefined, false))];
  const results = subjects.map((s) => JSON.stringify(s.evaluate(input, QUADRATIC_ENTRYPOINT)));
  if (results[1] !== results[0]) throw new Error(`memoised and unmemoised code disagree at n=${n}:\n${results[1]}\n${results[0]}`);
  for (const s of subjects) s.evaluate(input, QUADRATIC_ENTRYPOINT);
  const times = subjects.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    subjects.forEach((s, i) => {
      const t = cpuMs();
      s.evaluate(input, QUADRATIC_ENTRYPOINT);
      times[i]!.push(cpuMs() - t);
    });
  }
  const ms = times.map(median);
  log(`quadratic pattern, n=${n} resources: ${results[0]}`);
  subjects.forEach((s, i) => log(`  ${s.label.padEnd(22)} ${ms[i]!.toFixed(1).padStart(9)} ms/evaluation`));
  return { what: `rules referenced in loops, ${n} keys: CPU time per evaluation`, unit: "ms", toolgate: ms[0]!, anchor: subjects[1]!.label, anchorValue: ms[1]!, ratio: ms[1]! / ms[0]! };
}

/** The rows of `npm run bench` (bench/rows.ts): toolgate next to the baseline library. */
export const largeSource: RowSource = {
  name: "large",
  async run(ctx) {
    const rows = await largeRows({ ...(ctx.quick ? { sizes: [10_000], rounds: 2, quadratic: [1_000] } : {}), log: (m) => ctx.log(m) });
    return {
      rows: rows.map((r): BenchRow => ({
        what: r.what,
        unit: r.unit,
        better: "lower",
        toolgate: { label: "toolgate", value: r.toolgate },
        anchors: r.anchorValue === null ? [] : [{ label: r.anchor, value: r.anchorValue }],
        ...(r.anchorValue === null ? { notes: [`no baseline library: git ref ${DEFAULT_BASELINE} has no codegen/wasm/runtime.wasm in this checkout (a shallow clone?)`] } : {}),
      })),
    };
  },
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  const rows = await largeRows({
    ...(env["SIZES"] !== undefined ? { sizes: env["SIZES"].split(",").filter((x) => x !== "").map(Number) } : {}),
    ...(env["RULES"] !== undefined ? { rules: Number(env["RULES"]) } : {}),
    ...(env["ROUNDS"] !== undefined ? { rounds: Number(env["ROUNDS"]) } : {}),
    ...(env["QUADRATIC"] !== undefined ? { quadratic: env["QUADRATIC"].split(",").filter((x) => x !== "").map(Number) } : {}),
    ...(env["TOOLGATE_LARGE_BASELINE"] !== undefined ? { baseline: env["TOOLGATE_LARGE_BASELINE"] } : {}),
    log: (l) => console.log(l),
  });
  console.log("");
  for (const r of rows) {
    const vs = r.ratio === null ? "" : `  baseline ${r.anchorValue!.toFixed(1)} ${r.unit}: ${r.ratio.toFixed(2)}x ${r.ratio >= 1 ? "better" : "worse"}`;
    console.log(`${r.what.padEnd(48)} ${r.toolgate.toFixed(1).padStart(9)} ${r.unit}${vs}`);
  }
  console.log("\nreproduce: npm run bench:large   (SIZES=10000,100000 RULES=20 ROUNDS=3 QUADRATIC=1000,3000; TOOLGATE_LARGE_BASELINE=<git ref or .wasm>)");
}
