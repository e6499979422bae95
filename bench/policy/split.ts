// One fast-engine decision of policies/authz.rego in parts, and engine variants A/B
// (CPU time, interleaved rounds, median ns per decision):
//   npx tsx bench/policy/split.ts [policy.wasm]
import { readFileSync } from "node:fs";
import type { JsonObject } from "../../src/manifest.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { policyInputs } from "../../test/helpers/policy-inputs.js";

const wasm = readFileSync(process.argv[2] ?? "generated/policy.wasm");
const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
const ENTRY = "toolgate/authz/decision";
interface Internals {
  inputCells(i: unknown, ep: number): number;
  exports: { toolgate_decision: (a: number, b: number, c: number) => number };
  dataAddr: number;
}
const load = async (opts: { templates?: boolean }): Promise<FastPolicy> => {
  const p = await FastPolicy.load(wasm, opts);
  p.setData(data);
  return p;
};
const withTemplate = await load({});
const without = await load({ templates: false });
const ep = withTemplate.entrypoints[ENTRY]!;
const inputs = policyInputs(512, 42);
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const N = Number(process.env["BATCH"] ?? 20000);
const rounds = Number(process.env["ROUNDS"] ?? 9);
const parts = (name: string, p: FastPolicy): Record<string, () => void> => {
  const q = p as unknown as Internals;
  return {
    [`${name} decide`]: () => {
      for (let i = 0; i < N; i++) p.decide(inputs[i & 511]!, ep);
    },
    [`${name} write`]: () => {
      for (let i = 0; i < N; i++) q.inputCells(inputs[i & 511]!, ep);
    },
    [`${name} write+eval`]: () => {
      for (let i = 0; i < N; i++) q.exports.toolgate_decision(ep, q.inputCells(inputs[i & 511]!, ep), q.dataAddr);
    },
  };
};
const all = { ...parts("template", withTemplate), ...parts("projected", without) };
const res: Record<string, number[]> = {};
for (const [k, f] of Object.entries(all)) {
  f();
  res[k] = [];
}
for (let r = 0; r < rounds; r++) for (const [k, f] of Object.entries(all)) {
  const t = cpu();
  f();
  res[k]!.push(((cpu() - t) * 1e6) / N);
}
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const min = (xs: number[]): number => Math.min(...xs);
console.log(`${"".padEnd(22)} ${"median".padStart(6)}    ${"min".padStart(6)}`);
for (const [k, v] of Object.entries(res)) console.log(`${k.padEnd(22)} ${med(v).toFixed(0).padStart(6)} ns ${min(v).toFixed(0).padStart(6)} ns`);
console.log(`template in use: ${withTemplate.usesTemplate(ep)}`);
