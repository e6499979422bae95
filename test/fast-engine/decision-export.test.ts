/**
 * `toolgate_decision` and the projected input, through the fast engine, against the
 * SDK engine: every decision shape toDecision knows, reasons the policy computes,
 * members named like Object.prototype properties, and unread input left unwritten.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import type { PolicyInput } from "../../src/policy/engine.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

async function engines(body: string) {
  const r = compilePolicy({ modules: [{ file: "p.rego", source: `package p\n\n${body}\n` }], entrypoints: ["p/decision"] });
  expect(r.errors).toEqual([]);
  const fast = await loadFastEngine({ wasm: r.wasm!, entrypoint: "p/decision" });
  const sdk = await loadOpaWasmEngine({ wasm: r.wasm!, entrypoint: "p/decision" });
  expect(fast.policy.hasDecisionExport).toBe(true);
  return { fast, sdk, same: async (input: unknown) => expect(fast.decide(input as PolicyInput)).toEqual(await sdk.evaluate(input as PolicyInput)) };
}

describe("decision export", () => {
  it("maps every decision shape as toDecision does", async () => {
    const { fast, same } = await engines(`decision := {"allow": true, "reason": "ok", "requires_approval": false} if input.k == "allow"
decision := {"allow": false, "reason": "wait", "requires_approval": true, "extra": [1]} if input.k == "ask"
decision := {"allow": true, "reason": "both", "requires_approval": true} if input.k == "both"
decision := {"allow": false, "requires_approval": false} if input.k == "no_reason"
decision := {"allow": "yes", "reason": "r", "requires_approval": false} if input.k == "bad_allow"
decision := {"allow": false, "reason": 7, "requires_approval": false} if input.k == "bad_reason"
decision := ["allow"] if input.k == "array"
decision := {"allow", "reason"} if input.k == "set"
decision := 1 / 0 if input.k == "error"`);
    const want: Record<string, [boolean, string, boolean]> = {
      allow: [true, "ok", false],
      ask: [false, "wait", true],
      both: [false, "policy_malformed_decision", false],
      no_reason: [false, "policy_malformed_decision", false],
      bad_allow: [false, "policy_malformed_decision", false],
      bad_reason: [false, "policy_malformed_decision", false],
      array: [false, "policy_malformed_decision", false],
      set: [false, "policy_malformed_decision", false],
      error: [false, "policy_undefined", false],
      none: [false, "policy_undefined", false],
    };
    for (const [k, [allow, reason, ask]] of Object.entries(want)) {
      expect([k, fast.decide({ k } as unknown as PolicyInput)]).toEqual([k, { allow, reason, requires_approval: ask }]);
      await same({ k });
    }
    await same(null);
    await same({});
  });

  it("a reason computed from the input is right on every call, also once the string cache starts over", async () => {
    const { fast, sdk } = await engines(`decision := {"allow": false, "reason": input.r, "requires_approval": false}`);
    // Enough distinct short strings to wrap the cache region several times.
    for (let i = 0; i < 12_000; i++) {
      const input = { r: `reason_${i}` } as unknown as PolicyInput;
      const got = fast.decide(input);
      if (got.reason !== `reason_${i}`) expect(got).toEqual(await sdk.evaluate(input));
    }
    expect(fast.decide({ r: "reason_0" } as unknown as PolicyInput).reason).toBe("reason_0");
  });

  it("many reasons spelled out in the policy (more than the host's table of them has slots) each come back right, in any order", async () => {
    // 600 static reason cells: more than the reason table holds, so slots are shared and entries replaced.
    const n = 600;
    const reasons = Array.from({ length: n }, (_, i) => `reason_${i}_${"x".repeat(i % 40)}`);
    const { fast } = await engines(`table := ${JSON.stringify(reasons)}

decision := {"allow": true, "reason": table[input.i], "requires_approval": false}`);
    // A static reason is the same cell on every call: a stale or colliding entry would show as another reason.
    let seed = 7;
    for (let k = 0; k < 3 * n; k++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const i = k < n ? k : seed % n;
      expect(fast.decide({ i } as unknown as PolicyInput).reason).toBe(reasons[i]);
    }
  });

  it("members named like Object.prototype properties are read as the input's own members only", async () => {
    const { same } = await engines(`decision := {"allow": true, "reason": sprintf("%v/%v/%v", [object.get(input, "x", 0), input.toString, input.__proto__]), "requires_approval": false} if {
  is_string(input.toString)
  input.__proto__.a == 1
} else := {"allow": false, "reason": "proto_object", "requires_approval": false} if {
  is_object(input.__proto__)
} else := {"allow": false, "reason": "no", "requires_approval": false}`);
    await same({});
    await same({ toString: "s" });
    await same(JSON.parse('{"toString": "s", "__proto__": {"a": 1}, "x": 2}'));
    await same(JSON.parse('{"__proto__": {"a": 2}}'));
    // Reading only "__proto__": an input without that own member must not show Object.prototype as one.
    const proto = await engines(`decision := {"allow": false, "reason": "proto_object", "requires_approval": false} if {
  is_object(input.__proto__)
} else := {"allow": false, "reason": "no", "requires_approval": false}`);
    for (const input of [{}, JSON.parse('{"__proto__": {}}'), JSON.parse('{"__proto__": 1}')]) await proto.same(input);
    expect(proto.fast.decide({} as PolicyInput).reason).toBe("no");
  });

  it("input the policy cannot read is not written: a megabyte of context leaves memory as it was", async () => {
    const { fast, same } = await engines(`decision := {"allow": input.user == "alice", "reason": "r", "requires_approval": false}`);
    expect(fast.policy.projects(fast.entrypointId)).toBe(true);
    const before = fast.policy.memoryBytes;
    const input = { user: "alice", context: { blob: "x".repeat(1 << 20), list: Array.from({ length: 10_000 }, (_, i) => i) } };
    expect(fast.decide(input as unknown as PolicyInput)).toEqual({ allow: true, reason: "r", requires_approval: false });
    expect(fast.policy.memoryBytes).toBe(before);
    await same(input);
  });
});
