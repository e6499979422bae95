import { readFileSync, writeFileSync } from "node:fs";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { hostBuiltins, implementations } from "../../src/policy/host-builtins/index.js";
import { loadCase } from "./case.js";
const c = loadCase(process.argv[2]!);
const inputName = process.argv[3]!;
const b: Record<string, (...a: unknown[]) => unknown> = {};
for (const [n, f] of Object.entries(implementations)) b[n] = (...a: unknown[]) => { if (a.length === 0) return undefined; try { return f(...a); } catch { return undefined; } };
const ep = c.entrypoint!;
const opa = await loadPolicy(c.opaWasm, undefined, b);
opa.setData(c.data);
const r = compilePolicy({ modules: c.modules, entrypoints: [ep] });
const tg = await loadPolicy(r.wasm!, undefined, { ...hostBuiltins });
tg.setData(c.data);
const input = c.inputs.find((i) => i.name === inputName)!.value;
function unordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unordered).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, unordered((v as Record<string, unknown>)[k])]));
  return v;
}
writeFileSync("/tmp/benchrows-opa.json", JSON.stringify(unordered(opa.evaluate(input, ep)), null, 1));
writeFileSync("/tmp/benchrows-tg.json", JSON.stringify(unordered(tg.evaluate(input, ep)), null, 1));
