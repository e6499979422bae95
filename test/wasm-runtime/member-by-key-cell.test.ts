/**
 * `opa_value_get` finds a member of a short object by the address of its key cell
 * before it compares key text. Members must come out the same whichever way the
 * object was made: written by the fast engine with the module's own key cells, parsed
 * from JSON (fresh key cells) by the SDK, built by the policy (appended out of order),
 * and objects long enough for the hash index; absent members stay undefined.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import type { PolicyInput } from "../../src/policy/engine.js";
import { FastPolicy, loadFastEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

const POLICY = `package p

built := {k: v | some pair in input.pairs; k := pair[0]; v := pair[1]}

default a := "-"
a := input.a

default z := "-"
z := input.z

default nested := "-"
nested := input.o.m

default from_built := "-"
from_built := built.k1

default from_big := "-"
from_big := input.big.k17

default from_data := "-"
from_data := data.cfg.a

reason := sprintf("a=%v,z=%v,nested=%v,built=%v,big=%v,data=%v", [a, z, nested, from_built, from_big, from_data])

default allow := false
allow if input.a == "x"

default ask := false
ask if input.o.n == 3

decision := {"allow": allow, "reason": reason, "requires_approval": ask}
`;

describe("members found by key cell", () => {
  it("the fast engine (module key cells) and the SDK (parsed keys) read the same members", async () => {
    const r = compilePolicy({ modules: [{ file: "p.rego", source: POLICY }], entrypoints: ["p/decision"] });
    expect(r.errors).toEqual([]);
    const data = { cfg: { a: "from-data", b: 2 } };
    const fast = await loadFastEngine({ wasm: r.wasm!, entrypoint: "p/decision", data });
    const sdk = await loadOpaWasmEngine({ wasm: r.wasm!, entrypoint: "p/decision", data });
    expect(fast.policy.projects(fast.entrypointId)).toBe(true);
    const big = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const inputs: unknown[] = [
      { a: "x", z: 1, o: { m: 1, n: 2 }, pairs: [["k2", 2], ["k1", 1], ["k0", 0]], big },
      { a: "y", o: { n: 3 }, pairs: [], big: {} },
      { z: "only z", o: {}, pairs: [["k1", "one"]] },
      { a: 1.5, o: { m: [1] }, pairs: [["k1", null]], big },
    ];
    const want = [
      "a=x,z=1,nested=1,built=1,big=17,data=from-data",
      "a=y,z=-,nested=-,built=-,big=-,data=from-data",
      "a=-,z=only z,nested=-,built=one,big=-,data=from-data",
    ];
    for (const [i, input] of inputs.entries()) {
      const got = fast.decide(input as PolicyInput);
      expect(got).toEqual(await sdk.evaluate(input as PolicyInput));
      if (i < want.length) expect(got.reason).toBe(want[i]);
    }
  });
});

describe("a member found by text takes the asked-for key cell", () => {
  // The policy's key cell replaces an equal parsed key in the object, so later lookups
  // find it by address. A key computed during one evaluation (freed at the next heap
  // reset) must never be stored into the data document, which outlives it.
  it("data looked up by computed keys stays intact across evaluations", async () => {
    const { loadPolicy } = await import("@open-policy-agent/opa-wasm");
    const source = `package p

key := concat("", [input.prefix, "lpha"])

default got := "none"

got := data.cfg[key]

static := data.cfg.alpha

junk := [concat("", [input.prefix, format_int(i, 10), "-fill-the-heap-where-the-key-was"]) | some i in numbers.range(1, 50)]

out := {"static": static, "got": got, "n": count(junk)}
`;
    const r = compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints: ["p/out"] });
    expect(r.errors).toEqual([]);
    const sdk = await loadPolicy(r.wasm!);
    sdk.setData({ cfg: { alpha: 1, beta: 2 } });
    const want = { got: 1, static: 1, n: 50 };
    // What an evaluation allocated is free memory for the next one: scribble over it.
    const internals = sdk as unknown as { mem: WebAssembly.Memory; dataHeapPtr: number };
    const scribble = (): void => {
      new Uint8Array(internals.mem.buffer).fill(0xff, internals.dataHeapPtr);
    };
    for (let i = 0; i < 3; i++) {
      expect(sdk.evaluate({ prefix: "a" })).toEqual([{ result: want }]);
      scribble();
      expect(sdk.evaluate({ prefix: "zzzzzzzz" })).toEqual([{ result: { ...want, got: "none" } }]);
      scribble();
    }
  });

  // A member name the policy spells out is a static cell (never freed, never rewritten):
  // the data document takes it as its key, and keeps its own key for computed lookups.
  it("data looked up by a spelled-out name takes the static key cell and reads the same", async () => {
    const source = `package p

out := {"a": data.cfg.alpha, "b": data.cfg.beta, "k": data.cfg[input.k], "n": count(data.cfg)}
`;
    const r = compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints: ["p/out"] });
    expect(r.errors).toEqual([]);
    const policy = await FastPolicy.load(r.wasm!);
    const ep = policy.entrypoints["p/out"]!;
    const internals = policy as unknown as { memory: WebAssembly.Memory; dataAddr: number };
    // The engine's first data ("{}", parsed at load) lies above all static data and below all data set later.
    const heapFloor = internals.dataAddr;
    /** The data document's key cell of each member of data.cfg. */
    const cfgKeys = (): Record<string, number> => {
      const u32 = new Uint32Array(internals.memory.buffer);
      const u8 = new Uint8Array(internals.memory.buffer);
      const member = (obj: number, i: number): [string, number, number] => {
        const at = (u32[(obj >>> 2) + 3]! >>> 2) + 2 * i;
        const k = u32[at]!;
        const text = new TextDecoder().decode(u8.subarray(u32[(k >>> 2) + 2]!, u32[(k >>> 2) + 2]! + u32[(k >>> 2) + 1]!));
        return [text, k, u32[at + 1]!];
      };
      const cfg = member(internals.dataAddr, 0)[2];
      return Object.fromEntries(Array.from({ length: u32[(cfg >>> 2) + 1]! }, (_, i) => member(cfg, i).slice(0, 2)));
    };
    for (const [data, want] of [
      [{ cfg: { alpha: 1, beta: 2, gamma: 3 } }, { a: 1, b: 2, k: 3, n: 3 }],
      [{ cfg: { alpha: "x", beta: "y", gamma: "z", delta: 0 } }, { a: "x", b: "y", k: "z", n: 4 }],
    ] as const) {
      policy.setData(data);
      const parsed = cfgKeys();
      for (const k of Object.values(parsed)) expect(k).toBeGreaterThan(heapFloor);
      for (let i = 0; i < 3; i++) expect(policy.evaluate({ k: "gamma" }, ep)).toEqual([{ result: want }]);
      const after = cfgKeys();
      // alpha and beta now have the module's static cells (below everything the host loaded); gamma and delta keep theirs.
      expect(after.alpha).toBeLessThan(heapFloor);
      expect(after.beta).toBeLessThan(heapFloor);
      expect(after.gamma).toBe(parsed.gamma);
      expect(after.delta).toBe(parsed.delta);
      expect(policy.evaluate({ k: "alpha" }, ep)).toEqual([{ result: { ...want, k: want.a } }]);
    }
  });
});
