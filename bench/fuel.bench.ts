// npm run bench:fuel [-- --quick] — what bounded evaluation costs and what it buys, in one run:
//  - the cost: the same policy compiled with and without fuel checks, decided through the
//    SDK and the fast engine (policies/authz.rego), and a loop-bound rule (90,000 scan
//    iterations) through the SDK; interleaved rounds, medians;
//  - the bound: a quadratic rule (10^8 steps over a 10^4 array) under the engines'
//    default budget, with a 100 ms timer armed just before it: when is it stopped, and
//    how late does the timer fire. The unbounded anchor runs the same rule without fuel
//    checks (seconds; left out with --quick).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import type { JsonObject } from "../src/manifest.js";
import { DEFAULT_POLICY_BUDGET } from "../src/policy/budget.js";
import type { PolicyDecision, PolicyInput } from "../src/policy/engine.js";
import { loadFastEngine } from "../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../src/policy/opa-wasm-engine.js";
import { hostBuiltins } from "../src/policy/host-builtins/index.js";
import { policyInputs } from "./policy/inputs.js";
import { formatValue, interleaved } from "./rows.js";
import type { BenchRow, RowContext, RowSource } from "./rows.js";

const ENTRY = "toolgate/authz/decision";

function compile(file: string, source: string, entrypoint: string, fuel: boolean): Uint8Array {
  const r = compilePolicy({ modules: [{ file, source }], entrypoints: [entrypoint], fuel });
  if (r.wasm === null) throw new Error(`${file} does not compile: ${JSON.stringify(r.errors)}`);
  return r.wasm;
}

async function costRows(ctx: RowContext): Promise<BenchRow[]> {
  const rounds = ctx.quick ? 8 : 30;
  const batch = ctx.quick ? 1_000 : 4_000;
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
  let n = 0;
  const next = (): PolicyInput => inputs[n++ & 511]!;
  const viaSdk = (e: typeof sdkOn) => (): Promise<PolicyDecision> => e.evaluate(next());
  const sync = [fastOn, fastOff].map((e) => () => e.decide(next()));
  // The SDK engine is async in signature only: its evaluate settles synchronously, so batches are timed alike.
  const sdk = [viaSdk(sdkOn), viaSdk(sdkOff)];
  ctx.log(`fuel: authz.rego, ${rounds} rounds of ${batch} decisions per contender`);
  const [sdkOnUs, sdkOffUs, fastOnUs, fastOffUs] = interleaved([...sdk, ...sync], rounds, batch);

  const loopSrc = "package q\nimport rego.v1\n\nn := count([1 | some a in input.xs; some b in input.xs; a < b])\n";
  const xs = { xs: Array.from({ length: 300 }, (_, i) => i) };
  const loops = await Promise.all([true, false].map(async (fuel) => loadPolicy(compile("loop.rego", loopSrc, "q/n", fuel), undefined, hostBuiltins)));
  const [loopOn, loopOff] = interleaved(loops.map((p) => () => p.evaluate(xs, "q/n")), rounds, ctx.quick ? 5 : 20);

  return [
    overheadRow("fuel checks: one authz.rego decision, SDK engine", "µs/decision", sdkOnUs!, sdkOffUs!, "target <= 5%"),
    overheadRow("fuel checks: one authz.rego decision, fast engine", "µs/decision", fastOnUs!, fastOffUs!, "target <= 5%"),
    overheadRow("fuel checks: a loop-bound rule (90,000 scan iterations), SDK", "µs/evaluation", loopOn!, loopOff!, "the worst case: one check per iteration of a near-empty loop"),
  ];
}

/** A module with fuel checks next to the same module without them, and the overhead they add. */
function overheadRow(what: string, unit: string, withChecks: number, without: number, why: string): BenchRow {
  return {
    what,
    unit,
    better: "lower",
    toolgate: { label: "with fuel checks", value: withChecks },
    anchors: [{ label: "the same module without them", value: without }],
    notes: [`overhead ${((withChecks / without - 1) * 100).toFixed(1)}% (${why})`],
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

export const fuelRows: RowSource = {
  name: "fuel",
  async run(ctx) {
    return { rows: [...(await costRows(ctx)), ...(await boundRows(ctx))] };
  },
};

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printReport } = await import("./report.js");
  const quick = process.argv.includes("--quick");
  const result = await fuelRows.run({ quick, pgUrl: undefined, log: (m) => process.stderr.write(`${m}\n`) });
  printReport([{ source: fuelRows.name, result }]);
}
