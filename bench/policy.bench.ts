// npm run bench:policy — decisions per second for policies/authz.rego, side by side in one
// run: (a) the opa-wasm SDK's evaluate(), (b) toolgate's fast host path, (c) the same
// decision hand-written in JavaScript, (d) @cedar-policy/cedar-wasm statefulIsAuthorized
// with an equivalent pre-parsed policy set; plus the SDK floor (a constant rule through
// the same evaluate()), compile time and module size. Every contender is first checked
// to decide exactly as (c) on every input; rounds are interleaved and the median is
// reported, because the machine is shared.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import type { JsonObject } from "../src/manifest.js";
import { deny, toDecision } from "../src/policy/engine.js";
import type { PolicyDecision, PolicyInput } from "../src/policy/engine.js";
import { loadFastEngine } from "../src/policy/fast-engine.js";
import { hostBuiltins } from "../src/policy/host-builtins/index.js";
import { makeCedar } from "./policy/cedar.js";
import { policyInputs } from "./policy/inputs.js";
import { makeReference, type AuthzConfig } from "./policy/reference.js";

const ROUNDS = Number(process.env["ROUNDS"] ?? 9);
const BATCH = Number(process.env["BATCH"] ?? 20_000);
const ENTRY = "toolgate/authz/decision";

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

const viaSdk = (p: typeof sdk, ep: number) => (input: PolicyInput): PolicyDecision => {
  const rs = p.evaluate(input, ep) as { result?: unknown }[];
  return rs.length === 1 ? toDecision(rs[0]!.result) : deny("policy_undefined");
};
const contenders: { key: string; label: string; decide: (i: PolicyInput) => PolicyDecision }[] = [
  { key: "a", label: "(a) SDK evaluate()", decide: viaSdk(sdk, sdkEp) },
  { key: "b", label: "(b) toolgate fast path", decide: fast.decide },
  { key: "c", label: "(c) hand-written JS", decide: makeReference(config) },
  { key: "d", label: "(d) cedar-wasm statefulIsAuthorized", decide: makeCedar(config) },
  { key: "floor", label: "SDK floor (constant rule)", decide: viaSdk(floor, 0) },
];

// Same decisions on every input before any timing.
const reference = contenders[2]!.decide;
for (const c of contenders.slice(0, 4)) {
  const bad = inputs.filter((i) => JSON.stringify(c.decide(i)) !== JSON.stringify(reference(i)));
  if (bad.length > 0) throw new Error(`${c.label} disagrees with (c) on ${bad.length} inputs, e.g. ${JSON.stringify(bad[0])}`);
}

function round(decide: (i: PolicyInput) => PolicyDecision): number {
  let sink = 0;
  const t = performance.now();
  for (let i = 0; i < BATCH; i++) if (decide(inputs[i & 511]!).allow) sink++;
  const ms = performance.now() - t;
  if (sink < 0) console.log(sink);
  return (BATCH / ms) * 1000;
}
for (const c of contenders) round(c.decide); // warm-up
const rates = new Map<string, number[]>(contenders.map((c) => [c.key, []]));
for (let r = 0; r < ROUNDS; r++) for (const c of contenders) rates.get(c.key)!.push(round(c.decide));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = new Map([...rates].map(([k, v]) => [k, median(v)]));

const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
const ratio = (x: number, y: number): string => (x >= y ? `${(x / y).toFixed(2)}x faster` : `${(y / x).toFixed(2)}x slower`);
console.log(`policies/authz.rego: ${inputs.length} distinct inputs, ${ROUNDS} interleaved rounds of ${BATCH} decisions, median`);
console.log(`compile: ${compileMs.map((m) => `${m.toFixed(0)} ms`).join(", ")} (median ${median(compileMs).toFixed(0)} ms); module ${policyWasm.byteLength} bytes (floor module ${floorOut.wasm.byteLength} bytes)\n`);
console.log(`${"".padEnd(38)}${"decisions/s".padStart(13)}${"ns/decision".padStart(13)}   vs (c) hand-written      vs (d) cedar`);
for (const c of contenders) {
  const v = rate.get(c.key)!;
  console.log(`${c.label.padEnd(38)}${fmt(v).padStart(13)}${fmt(1e9 / v).padStart(13)}   ${ratio(v, rate.get("c")!).padEnd(22)}   ${ratio(v, rate.get("d")!)}`);
}
const a = rate.get("a")!, b = rate.get("b")!, d = rate.get("d")!, fl = rate.get("floor")!;
const check = (ok: boolean, text: string): string => `${ok ? "PASS" : "FAIL"}  ${text}`;
console.log("\ntargets:");
console.log(check(a >= 10 * d, `(a) at least 10x faster than (d): ${(a / d).toFixed(1)}x`));
console.log(check(fl / a <= 2, `(a) within 2x of the SDK floor: floor/(a) = ${(fl / a).toFixed(2)}`));
console.log(check(b > a, `(b) faster than (a): ${(b / a).toFixed(2)}x`));
console.log("\nreproduce: npm run bench:policy   (ROUNDS=9 BATCH=20000 by default)");
