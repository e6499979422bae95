// npm run bench:fuel [-- --quick] — what bounded evaluation costs and what it buys, in one run:
//  - the cost: the same policy compiled with and without fuel checks, decided through the
//    SDK and the fast engine (policies/authz.rego), and a loop-bound rule (90,000 scan
//    iterations) through the SDK. Many short paired rounds (with and without alternating,
//    five batches each; a round compares their fastest batches), one ratio per round: the
//    overhead is the median ratio, with its interquartile range, so a load spike moves
//    single rounds, not the figure. Next to
//    time, deterministic figures: the module's code size with and without the checks,
//    the checks in it (`toolgate.fuel` section) and the fuel one evaluation spends;
//  - the bound: a quadratic rule (10^8 steps over a 10^4 array) under the engines'
//    default budget, with a 100 ms timer armed just before it: when is it stopped, and
//    how late does the timer fire. The unbounded anchor runs the same rule without fuel
//    checks (seconds; left out with --quick); and count(numbers.range(0, 10^8 - 1)), priced at
//    its call site, under the same budget.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import type { JsonObject } from "../src/manifest.js";
import { SECTIONS } from "../src/policy/abi.js";
import type { FuelSection } from "../src/policy/abi.js";
import { DEFAULT_POLICY_BUDGET } from "../src/policy/budget.js";
import type { PolicyDecision, PolicyInput } from "../src/policy/engine.js";
import { loadFastEngine } from "../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../src/policy/opa-wasm-engine.js";
import { hostBuiltins } from "../src/policy/host-builtins/index.js";
import { policyInputs } from "../test/helpers/policy-inputs.js";
import { formatValue, median } from "./rows.js";
import type { BenchRow, RowContext, RowSource } from "./rows.js";

const ENTRY = "toolgate/authz/decision";

function compile(file: string, source: string, entrypoint: string, fuel: boolean): Uint8Array {
  const r = compilePolicy({ modules: [{ file, source }], entrypoints: [entrypoint], fuel });
  if (r.wasm === null) throw new Error(`${file} does not compile: ${JSON.stringify(r.errors)}`);
  return r.wasm;
}

/** The q-quantile of a non-empty list (linear between ranks). */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
}

interface Paired {
  /** Median µs per call with and without the checks. */
  readonly withUs: number;
  readonly withoutUs: number;
  /** Per-round overhead (with / without - 1) in percent: median and interquartile range. */
  readonly overhead: number;
  readonly q1: number;
  readonly q3: number;
  readonly rounds: number;
}

/** Back-to-back batches per contender in a round; a round keeps each contender's fastest, so a preempted batch drops out. */
const BATCHES_PER_ROUND = 5;

/**
 * `rounds` paired rounds; in each, the contenders alternate `BATCHES_PER_ROUND` times
 * with `batch` calls per batch (the order flips every round). The overhead of a round
 * is the ratio of the two contenders' fastest batches in it.
 */
function paired(withChecks: () => unknown, without: () => unknown, rounds: number, batch: number): Paired {
  const time = (f: () => unknown): number => {
    const t = performance.now();
    for (let i = 0; i < batch; i++) f();
    return ((performance.now() - t) * 1000) / batch;
  };
  for (let i = 0; i < 3; i++) {
    time(withChecks);
    time(without);
  }
  const on: number[] = [];
  const off: number[] = [];
  const ratio: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let a = Infinity;
    let b = Infinity;
    for (let k = 0; k < BATCHES_PER_ROUND; k++) {
      if ((r + k) % 2 === 0) {
        a = Math.min(a, time(withChecks));
        b = Math.min(b, time(without));
      } else {
        b = Math.min(b, time(without));
        a = Math.min(a, time(withChecks));
      }
    }
    on.push(a);
    off.push(b);
    ratio.push((a / b - 1) * 100);
  }
  return { withUs: median(on), withoutUs: median(off), overhead: median(ratio), q1: quantile(ratio, 0.25), q3: quantile(ratio, 0.75), rounds };
}

/** The module's `toolgate.fuel` section as text, or why there is none. */
function checksIn(wasm: Uint8Array): string {
  const sections = WebAssembly.Module.customSections(new WebAssembly.Module(new Uint8Array(wasm)), SECTIONS.fuel);
  if (sections.length === 0) return "no toolgate.fuel section";
  const s = JSON.parse(new TextDecoder().decode(sections[0]!)) as FuelSection;
  return `checks: ${Object.entries(s.checks).map(([k, n]) => `${n} ${k}`).join(", ")}; functions: ${s.functions.checked} checked, ${s.functions.unchecked} without`;
}

/** Fuel one SDK evaluation of each input spends (mean), through the module's own exports. */
async function stepsPerEvaluation(wasm: Uint8Array, entrypoint: string, data: JsonObject | undefined, inputs: readonly unknown[]): Promise<number> {
  const policy = await loadPolicy(wasm, undefined, hostBuiltins);
  if (data !== undefined) policy.setData(data);
  const ex = (policy.wasmInstance as WebAssembly.Instance).exports as unknown as { toolgate_fuel_budget_set(n: number): void; toolgate_fuel_left(): number };
  let total = 0;
  for (const input of inputs) {
    ex.toolgate_fuel_budget_set(1e15);
    policy.evaluate(input, entrypoint);
    total += 1e15 - ex.toolgate_fuel_left();
  }
  return total / inputs.length;
}

async function costRows(ctx: RowContext): Promise<BenchRow[]> {
  const rounds = ctx.quick ? 24 : 100;
  const source = readFileSync("policies/authz.rego", "utf8");
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
  const inputs = policyInputs(512, 42);
  const on = compile("policies/authz.rego", source, ENTRY, true);
  const off = compile("policies/authz.rego", source, ENTRY, false);
  const sdkOn = await loadOpaWasmEngine({ wasm: on, entrypoint: ENTRY, data });
  const sdkOff = await loadOpaWasmEngine({ wasm: off, entrypoint: ENTRY, data });
  const fastOn = await loadFastEngine({ wasm: on, entrypoint: ENTRY, data });
  const fastOff = await loadFastEngine({ wasm: off, entrypoint: ENTRY, data });
  // The engines' evaluate() is what the runtime calls; fast.decide is its synchronous core.
  // Both contenders of a round see the same inputs.
  const cycling = () => {
    let n = 0;
    return (): PolicyInput => inputs[n++ & 511]!;
  };
  const [a, b, c, d] = [cycling(), cycling(), cycling(), cycling()];
  ctx.log(`fuel: authz.rego, ${rounds} paired rounds per engine`);
  // The SDK engine is async in signature only: its evaluate settles synchronously, so batches are timed alike.
  const sdk = paired(() => sdkOn.evaluate(a()), () => sdkOff.evaluate(b()), rounds, 64);
  const fast = paired(() => fastOn.decide(c()), () => fastOff.decide(d()), rounds, 256);
  const authzSteps = await stepsPerEvaluation(on, ENTRY, data, inputs);

  const loopSrc = "package q\nimport rego.v1\n\nn := count([1 | some a in input.xs; some b in input.xs; a < b])\n";
  const xs = { xs: Array.from({ length: 300 }, (_, i) => i) };
  const loopOnWasm = compile("loop.rego", loopSrc, "q/n", true);
  const loopOffWasm = compile("loop.rego", loopSrc, "q/n", false);
  const [loopOn, loopOff] = await Promise.all([loopOnWasm, loopOffWasm].map((w) => loadPolicy(w, undefined, hostBuiltins)));
  const loop = paired(() => loopOn!.evaluate(xs, "q/n"), () => loopOff!.evaluate(xs, "q/n"), ctx.quick ? 12 : 40, 1);
  const loopSteps = await stepsPerEvaluation(loopOnWasm, "q/n", undefined, [xs]);

  const authzStatic = `${checksIn(on)}; code ${on.length} bytes with, ${off.length} without (+${on.length - off.length}); ${formatValue(authzSteps)} fuel units per decision (mean of ${inputs.length} inputs)`;
  return [
    overheadRow("fuel checks: one authz.rego decision, SDK engine", "µs/decision", sdk, "target <= 5%", authzStatic),
    overheadRow("fuel checks: one authz.rego decision, fast engine", "µs/decision", fast, "target <= 5%", authzStatic),
    overheadRow("fuel checks: a loop-bound rule (90,000 scan iterations), SDK", "µs/evaluation", loop, "the worst case for per-iteration checks: a near-empty nested loop",
      `${checksIn(loopOnWasm)}; ${formatValue(loopSteps)} fuel units per evaluation`),
  ];
}

/** A module with fuel checks next to the same module without them, and the overhead they add. */
function overheadRow(what: string, unit: string, p: Paired, why: string, deterministic: string): BenchRow {
  return {
    what,
    unit,
    better: "lower",
    toolgate: { label: "with fuel checks", value: p.withUs },
    anchors: [{ label: "the same module without them", value: p.withoutUs }],
    notes: [
      `overhead: median ${p.overhead.toFixed(1)}% of ${p.rounds} paired rounds, interquartile range ${p.q1.toFixed(1)}% .. ${p.q3.toFixed(1)}% (${why})`,
      deterministic,
    ],
  };
}

const QUADRATIC = `package toolgate.authz
import rego.v1

default decision := {"allow": false, "reason": "no_rule_matched", "requires_approval": false}

decision := {"allow": true, "reason": "pairs_counted", "requires_approval": false} if {
	count([1 | some a in data.big; some b in data.big; a == b]) > 0
}
`;

/** Runs `work` with a `timerMs` timer armed just before it; how long the work took and how late the timer fired. */
async function withTimer(timerMs: number, work: () => Promise<unknown>): Promise<{ workMs: number; timerMs: number; result: unknown }> {
  const armed = performance.now();
  const fired = new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - armed), timerMs));
  const result = await work();
  const workMs = performance.now() - armed;
  return { workMs, timerMs: await fired, result };
}

async function boundRows(ctx: RowContext): Promise<BenchRow[]> {
  const data: JsonObject = { big: Array.from({ length: 10_000 }, (_, i) => i) };
  const input = policyInputs(1, 7)[0]!;
  const bounded = await loadFastEngine({ wasm: compile("quadratic.rego", QUADRATIC, ENTRY, true), entrypoint: ENTRY, data });
  ctx.log(`fuel: a quadratic rule under the default budget (${DEFAULT_POLICY_BUDGET.toLocaleString("en-US")} steps)`);
  const stopped = await withTimer(100, () => bounded.evaluate(input));
  const reason = (stopped.result as PolicyDecision).reason;
  if (reason !== "policy_budget_exceeded") throw new Error(`the quadratic rule was not stopped: ${JSON.stringify(stopped.result)}`);
  const anchors = [];
  const notes = [`decision: deny ${reason}; a 100 ms timer armed before it fired after ${formatValue(stopped.timerMs)} ms`];
  if (!ctx.quick) {
    const unbounded = await loadFastEngine({ wasm: compile("quadratic.rego", QUADRATIC, ENTRY, false), entrypoint: ENTRY, data });
    ctx.log("fuel: the same rule without fuel checks (seconds)");
    const ran = await withTimer(100, () => unbounded.evaluate(input));
    anchors.push({ label: "the same rule unbounded", value: ran.workMs });
    notes.push(`unbounded: the 100 ms timer fired after ${formatValue(ran.timerMs)} ms`);
  } else {
    notes.push("unbounded anchor left out with --quick");
  }
  return [{ what: "a policy with a quadratic rule (10^8 steps), fast engine", unit: "ms until the decision", better: "lower", toolgate: { label: "bounded (default budget)", value: stopped.workMs }, anchors, notes }];
}

const HUGE_RANGE = `package toolgate.authz
import rego.v1

default decision := {"allow": false, "reason": "no_rule_matched", "requires_approval": false}

decision := {"allow": true, "reason": "range_counted", "requires_approval": false} if {
	count(numbers.range(0, data.n)) > 0
}
`;

/** A builtin asked for 10^8 elements: priced before the call, it is stopped without being run. */
async function rangeRow(ctx: RowContext): Promise<BenchRow> {
  const input = policyInputs(1, 7)[0]!;
  const engine = await loadFastEngine({ wasm: compile("range.rego", HUGE_RANGE, ENTRY, true), entrypoint: ENTRY, data: { n: 99_999_999 } });
  ctx.log(`fuel: count(numbers.range(0, 10^8 - 1)) under the default budget`);
  const stopped = await withTimer(100, () => engine.evaluate(input));
  const reason = (stopped.result as PolicyDecision).reason;
  if (reason !== "policy_budget_exceeded") throw new Error(`the huge range was not stopped: ${JSON.stringify(stopped.result)}`);
  return {
    what: "a builtin over a huge range: count(numbers.range(0, 10^8 - 1)), fast engine",
    unit: "ms until the decision",
    better: "lower",
    toolgate: { label: "bounded (default budget)", value: stopped.workMs },
    anchors: [],
    notes: [`decision: deny ${reason}, charged 10^8 units at the call before the array is made; unpriced, the call builds 10^8 numbers (the runtime's own cap; no anchor: gigabytes of Wasm memory)`],
  };
}

export const fuelRows: RowSource = {
  name: "fuel",
  async run(ctx) {
    return { rows: [...(await costRows(ctx)), ...(await boundRows(ctx)), await rangeRow(ctx)] };
  },
};

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printReport } = await import("./report.js");
  const quick = process.argv.includes("--quick");
  const result = await fuelRows.run({ quick, pgUrl: undefined, log: (m) => process.stderr.write(`${m}\n`) });
  printReport([{ source: fuelRows.name, result }]);
}
