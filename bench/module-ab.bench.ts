// A/B of the authz decision: a module built elsewhere (argv[2], e.g. from main) against this
// tree's compiler, interleaved rounds in one process, median CPU time per decision.
// npx tsx bench/module-ab.bench.ts old.wasm   (ROUNDS=9 BATCH=10000 by default)
import { readFileSync } from "node:fs";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import { loadFastEngine } from "../src/policy/fast-engine.js";
import { hostBuiltins } from "../src/policy/host-builtins/index.js";
import { policyInputs } from "../test/helpers/policy-inputs.js";
import type { PolicyInput } from "../src/policy/engine.js";

const ENTRY = "toolgate/authz/decision";
const source = readFileSync("policies/authz.rego", "utf8");
const data = JSON.parse(readFileSync("policies/data.json", "utf8"));
const oldWasm = readFileSync(process.argv[2]!);
const r = compilePolicy({ modules: [{ file: "policies/authz.rego", source }], entrypoints: [ENTRY] });
if (r.wasm === null) throw new Error(JSON.stringify(r.errors));
const newWasm = r.wasm;
const inputs = policyInputs(512, 42);
const ROUNDS = Number(process.env.ROUNDS ?? 9), BATCH = Number(process.env.BATCH ?? 10000);

const fastOld = await loadFastEngine({ wasm: oldWasm, entrypoint: ENTRY, data });
const fastNew = await loadFastEngine({ wasm: newWasm, entrypoint: ENTRY, data });
const sdkOld = await loadPolicy(oldWasm, undefined, hostBuiltins); sdkOld.setData(data);
const sdkNew = await loadPolicy(newWasm, undefined, hostBuiltins); sdkNew.setData(data);
const viaSdk = (p: typeof sdkOld) => (i: PolicyInput) => JSON.stringify(p.evaluate(i));
const contenders: [string, (i: PolicyInput) => unknown][] = [
  ["fast old", fastOld.decide], ["fast new", fastNew.decide], ["sdk old", viaSdk(sdkOld)], ["sdk new", viaSdk(sdkNew)],
];
// Same answers first.
for (const i of inputs) {
  if (JSON.stringify(fastOld.decide(i)) !== JSON.stringify(fastNew.decide(i))) throw new Error("fast engines differ on " + JSON.stringify(i));
  if (viaSdk(sdkOld)(i) !== viaSdk(sdkNew)(i)) throw new Error("sdk results differ");
}
const round = (f: (i: PolicyInput) => unknown): number => {
  const u = process.cpuUsage();
  for (let k = 0; k < BATCH; k++) f(inputs[k % inputs.length]!);
  const d = process.cpuUsage(u);
  return ((d.user + d.system) * 1000) / BATCH; // ns per decision
};
const times = new Map<string, number[]>(contenders.map(([n]) => [n, []]));
for (const [, f] of contenders) round(f);
for (let k = 0; k < ROUNDS; k++) for (const [n, f] of contenders) times.get(n)!.push(round(f));
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const [n] of contenders) console.log(`${n.padEnd(9)} ${(med(times.get(n)!) / 1000).toFixed(3)} us/decision`);
console.log(`fast new/old ${(med(times.get("fast new")!) / med(times.get("fast old")!)).toFixed(3)}; sdk new/old ${(med(times.get("sdk new")!) / med(times.get("sdk old")!)).toFixed(3)}`);
console.log(`module bytes old ${oldWasm.length} new ${newWasm.length}`);
