/**
 * The fast host path decides exactly as the SDK path: policies/authz.rego compiled
 * by our compiler, evaluated through the unmodified SDK (`loadPolicy` +
 * `evaluate`) and through FastPolicy on the generated inputs, malformed ones
 * included; result sets must be identical, not only decisions. Also a policy with
 * host builtins, falsy/large/non-ASCII inputs, load errors, and a cross-check
 * against the hand-written reference decision.
 */
import { readFileSync } from "node:fs";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { malformedInputs, policyInputs } from "../helpers/policy-inputs.js";
import { makeReference } from "../helpers/policy-reference.js";
import { compilePolicy } from "../../codegen/compiler/index.js";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyInput } from "../../src/policy/engine.js";
import { FastPolicy, loadFastEngine } from "../../src/policy/fast-engine.js";
import { createHostBuiltins, hostBuiltins } from "../../src/policy/host-builtins/index.js";
import { isPolicyLoadError, loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

const ENTRY = "toolgate/authz/decision";
const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
let wasm: Uint8Array;

beforeAll(() => {
  const r = compilePolicy({ modules: [{ file: "policies/authz.rego", source: readFileSync("policies/authz.rego", "utf8") }], entrypoints: [ENTRY] });
  expect(r.errors).toEqual([]);
  wasm = r.wasm!;
});

const inputs = (): unknown[] => [...policyInputs(400, 1), ...malformedInputs()];

describe("fast engine vs SDK on policies/authz.rego", () => {
  it("identical result sets on every generated input", async () => {
    const sdk = await loadPolicy(wasm, undefined, hostBuiltins);
    sdk.setData(data);
    const fast = await FastPolicy.load(wasm);
    fast.setData(data);
    const ep = fast.entrypoints[ENTRY]!;
    // Inputs go in as value cells written by the host (fast-input.ts), checked here against the SDK's JSON path.
    expect(fast.writesValuesDirectly).toBe(true);
    const all = inputs();
    for (const input of all) expect([input, fast.evaluate(input, ep)]).toEqual([input, sdk.evaluate(input, ep)]);
    // Interleaved again: neither path may leak state from one evaluation into the next.
    for (const input of [...all].reverse()) expect(fast.evaluate(input, ep)).toEqual(sdk.evaluate(input, ep));
  });

  it("identical PolicyDecisions through both PolicyEngine implementations, same version", async () => {
    const a = await loadOpaWasmEngine({ wasm, entrypoint: ENTRY, data });
    const b = await loadFastEngine({ wasm, entrypoint: ENTRY, data });
    expect(b.version).toBe(a.version);
    for (const input of policyInputs(200, 3)) expect(await b.evaluate(input)).toEqual(await a.evaluate(input));
  });

  it("decides as the hand-written reference (so the benchmark compares like with like)", async () => {
    const fast = await loadFastEngine({ wasm, entrypoint: ENTRY, data });
    const ref = makeReference((data.toolgate as JsonObject).config as never);
    const reasons = new Set<string>();
    for (const input of inputs()) {
      const want = ref(input);
      reasons.add(want.reason);
      expect([input, fast.decide(input as PolicyInput)]).toEqual([input, want]);
    }
    // The inputs reach every reason the policy can give (except the unreachable default).
    expect(reasons.size).toBeGreaterThanOrEqual(18);
  });

  it("fails closed on an evaluation error and reports load errors", async () => {
    await expect(loadFastEngine({ wasm, entrypoint: "nope/x" })).rejects.toSatisfy(isPolicyLoadError);
    await expect(loadFastEngine({ wasm: new Uint8Array([0, 97, 115, 109]), entrypoint: ENTRY })).rejects.toSatisfy(isPolicyLoadError);
  });
});

describe("fast engine input handling and host builtins", () => {
  const source = `package t
import rego.v1
r := {"glob": glob.match("*.example.com", [], input.host), "n": count(input.list), "host": input.host}
now_twice if time.now_ns() == time.now_ns()
`;
  let mod: Uint8Array;
  beforeAll(() => {
    const r = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: ["t/r", "t/now_twice"] });
    expect(r.errors).toEqual([]);
    mod = r.wasm!;
  });

  it("same results as the SDK for host builtins, falsy, non-ASCII and memory-growing inputs", async () => {
    const sdk = await loadPolicy(mod, undefined, hostBuiltins);
    const fast = await FastPolicy.load(mod);
    const cases: unknown[] = [
      { host: "api.example.com", list: [1, 2] },
      { host: "ü.example.com", list: [] },
      { host: "日本.example.com", list: ["😀"] },
      null,
      false,
      0,
      "",
      { host: "x".repeat(1_000_000), list: [] },
      { host: "a.example.com", list: [] },
      // The writer gives up on these; they take the JSON path.
      { host: "f.example.com", list: [1.5, 2 ** 60, -0.25] },
      { host: "s.example.com", list: ["\ud800"] },
      { host: "k.example.com", list: [{ "\uffff": 1, "\ud83d\ude00": 2, a: 3 }] },
      { host: "e.example.com", list: [], extra: [undefined] },
    ];
    for (const c of cases) expect(fast.evaluate(c, 0)).toEqual(sdk.evaluate(c, 0));
  });

  it("lists every missing host builtin at load (the SDK names only the first)", async () => {
    const set = createHostBuiltins();
    const builtins = Object.fromEntries(Object.entries(set.builtins).filter(([n]) => n !== "toolgate/glob.match" && n !== "toolgate/time.now_ns"));
    const err = await FastPolicy.load(mod, { host: { ...set, builtins } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isPolicyLoadError(err)).toBe(true);
    expect((err as Error).message).toBe("policy.wasm needs builtins this host does not provide: toolgate/glob.match, toolgate/time.now_ns");
  });

  it("time.now_ns reads the clock once per evaluation", async () => {
    const fast = await FastPolicy.load(mod);
    expect(fast.evaluate({}, 1)).toEqual([{ result: true }]);
  });
});
