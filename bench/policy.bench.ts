// npm run bench:policy — one decision of policies/authz.rego, side by side in one run:
// (a) the opa-wasm SDK's evaluate(), (b) the default engine (toolgate's fast engine:
// projected input, decision export), (c) the same decision hand-written in JavaScript,
// (d) @cedar-policy/cedar-wasm statefulIsAuthorized with an equivalent pre-parsed policy
// set; plus the SDK floor (a constant rule through the same evaluate()), compile time and
// module size. Every contender is first checked to decide exactly as (c) on every input;
// rounds are interleaved and the median is reported, because the machine is shared.
// `npm run bench` reports the same contenders through bench/policy-rows.ts.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import type { JsonObject } from "../src/manifest.js";
import { deny, toDecision } from "../src/policy/engine.js";
import type { PolicyDecision, PolicyInput } from "../src/policy/engine.js";
import { loadFastEngine } from "../src/policy/fast-engine.js";
import { hostBuiltins } from "../src/policy/host-builtins/index.js";
import { makeCedar } from "./policy/cedar.js";
import { policyInputs } from "../test/helpers/policy-inputs.js";
import { makeReference, type AuthzConfig } from "../test/helpers/policy-reference.js";

const ENTRY = "toolgate/authz/decision";

export interface PolicyMeasurement {
  readonly rounds: number;
  readonly batch: number;
  readonly inputs: number;
  readonly compileMs: readonly number[];
  readonly moduleBytes: number;
  readonly floorBytes: number;
  /** Median decisions per second, by contender key (a, b, c, d, floor). */
  readonly rate: ReadonlyMap<string, number>;
  readonly labels: ReadonlyMap<string, string>;
}

export async function measurePolicy(opts: { rounds: number; batch: number }): Promise<PolicyMeasurement> {
  const source = readFileSync("policies/authz.rego", "utf8");
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
  const config = (data.toolgate as JsonObject).config as unknown as AuthzConfig;
  const inputs = policyInputs(512, 42);

  // Compile time: median of 3 (the first includes loading the runtime library).
  const compileMs: number[] = [];
  let wasm: Uint8Array | null = null;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const r = compilePolicy({ modules: [{ file: "policies/authz.rego", source }], entrypoints: [ENTRY] });
    compileMs.push(performance.now() - t);
    if (r.errors.length > 0 || r.wasm === null) throw new Error(`authz.rego does not compile: ${JSON.stringify(r.errors)}`);
    wasm = r.wasm;
  }
  const policyWasm = wasm!;
  const floorSrc = 'package floor\n\ndecision := {"allow": true, "reason": "constant", "requires_approval": false}\n';
  const floorOut = compilePolicy({ modules: [{ file: "floor.rego", source: floorSrc }], entrypoints: ["floor/decision"] });
  if (floorOut.wasm === null) throw new Error(`floor module does not compile: ${JSON.stringify(floorOut.errors)}`);

  const sdk = await loadPolicy(policyWasm, undefined, hostBuiltins);
  sdk.setData(data);
  const sdkEp = (sdk.entrypoints as Record<string, number>)[ENTRY]!;
  const floor = await loadPolicy(floorOut.wasm);
  const fast = await loadFastEngine({ wasm: policyWasm, entrypoint: ENTRY, data });
  if (!fast.policy.hasDecisionExport || !fast.policy.projects(fast.entrypointId)) throw new Error("the fast engine does not use the decision export and the projected input");

  const viaSdk = (p: typeof sdk, ep: number) => (input: PolicyInput): PolicyDecision => {
    const rs = p.evaluate(input, ep) as { result?: unknown }[];
    return rs.length === 1 ? toDecision(rs[0]!.result) : deny("policy_undefined");
  };
  const contenders: { key: string; label: string; decide: (i: PolicyInput) => PolicyDecision }[] = [
    { key: "a", label: "(a) SDK evaluate()", decide: viaSdk(sdk, sdkEp) },
    { key: "b", label: "(b) default engine (fast path)", decide: fast.decide },
    // The fast engine's previous route, for before/after in one run: whole input, legacy eval, result set read back.
    {
      key: "b0",
      label: "(b0) fast, whole input + result set",
      decide: (i) => {
        const rs = fast.policy.evaluate(i, fast.entrypointId) as { result?: unknown }[];
        return rs.length === 1 ? toDecision(rs[0]!.result) : deny("policy_undefined");
      },
    },
    { key: "c", label: "(c) hand-written JS", decide: makeReference(config) },
    { key: "d", label: "(d) cedar-wasm statefulIsAuthorized", decide: makeCedar(config) },
    { key: "floor", label: "SDK floor (constant rule)", decide: viaSdk(floor, 0) },
  ];

  // Same decisions on every input before any timing.
  const reference = contenders.find((c) => c.key === "c")!.decide;
  for (const c of contenders.filter((c) => c.key !== "floor")) {
    const bad = inputs.filter((i) => JSON.stringify(c.decide(i)) !== JSON.stringify(reference(i)));
    if (bad.length > 0) throw new Error(`${c.label} disagrees with (c) on ${bad.length} inputs, e.g. ${JSON.stringify(bad[0])}`);
  }

  // CPU_TIME=1 times each round in this process's CPU time (process.cpuUsage) instead of
  // wall time: on a machine shared with other work, time given to other processes then
  // does not count against whichever contender happened to be running.
  const cpuTime = process.env["CPU_TIME"] === "1";
  const now = (): number => {
    if (!cpuTime) return performance.now();
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const round = (decide: (i: PolicyInput) => PolicyDecision): number => {
    let sink = 0;
    const t = now();
    for (let i = 0; i < opts.batch; i++) if (decide(inputs[i & 511]!).allow) sink++;
    const ms = now() - t;
    if (sink < 0) console.log(sink);
    return (opts.batch / ms) * 1000;
  };
  for (const c of contenders) round(c.decide); // warm-up
  const rates = new Map<string, number[]>(contenders.map((c) => [c.key, []]));
  for (let r = 0; r < opts.rounds; r++) for (const c of contenders) rates.get(c.key)!.push(round(c.decide));
  return {
    rounds: opts.rounds,
    batch: opts.batch,
    inputs: inputs.length,
    compileMs,
    moduleBytes: policyWasm.byteLength,
    floorBytes: floorOut.wasm.byteLength,
    rate: new Map([...rates].map(([k, v]) => [k, median(v)])),
    labels: new Map(contenders.map((c) => [c.key, c.label])),
  };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const m = await measurePolicy({ rounds: Number(process.env["ROUNDS"] ?? 9), batch: Number(process.env["BATCH"] ?? 20_000) });
  const rate = m.rate;
  const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
  const ratio = (x: number, y: number): string => (x >= y ? `${(x / y).toFixed(2)}x faster` : `${(y / x).toFixed(2)}x slower`);
  console.log(`policies/authz.rego: ${m.inputs} distinct inputs, ${m.rounds} interleaved rounds of ${m.batch} decisions, median${process.env["CPU_TIME"] === "1" ? " (CPU time)" : ""}`);
  console.log(`compile: ${m.compileMs.map((t) => `${t.toFixed(0)} ms`).join(", ")} (median ${median(m.compileMs).toFixed(0)} ms); module ${m.moduleBytes} bytes (floor module ${m.floorBytes} bytes)\n`);
  console.log(`${"".padEnd(38)}${"decisions/s".padStart(13)}${"ns/decision".padStart(13)}   vs (c) hand-written      vs (d) cedar`);
  for (const [key, label] of m.labels) {
    const v = rate.get(key)!;
    console.log(`${label.padEnd(38)}${fmt(v).padStart(13)}${fmt(1e9 / v).padStart(13)}   ${ratio(v, rate.get("c")!).padEnd(22)}   ${ratio(v, rate.get("d")!)}`);
  }
  const a = rate.get("a")!, b = rate.get("b")!, c = rate.get("c")!, d = rate.get("d")!;
  const check = (ok: boolean, text: string): string => `${ok ? "PASS" : "FAIL"}  ${text}`;
  console.log("\ntargets:");
  console.log(check(1e6 / b <= 1.5, `(b) <= 1.5 µs per decision: ${(1e6 / b).toFixed(2)} µs`));
  console.log(check(c / b <= 20, `(b) within 20x of (c): ${(c / b).toFixed(1)}x`));
  console.log(check(b >= 150 * d, `(b) at least 150x faster than (d): ${(b / d).toFixed(0)}x`));
  console.log(check(1e6 / a <= 6, `(a) <= 6 µs per decision: ${(1e6 / a).toFixed(2)} µs`));
  console.log(check(b > a, `(b) faster than (a): ${(b / a).toFixed(2)}x`));
  console.log(`(b) vs its previous route (b0): ${(b / rate.get("b0")!).toFixed(2)}x`);
  console.log("\nreproduce: npm run bench:policy   (ROUNDS=9 BATCH=20000 by default; CPU_TIME=1 on a busy machine)");
}
