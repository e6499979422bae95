/** Host names resolve; the lenient/strict/probe wrappers behave (agreement with the registry: test/builtins). */
import { describe, expect, it } from "vitest";
import { hostBuiltinName, parseHostBuiltinName } from "../../codegen/wasm/host-builtins.js";
import { BUILTINS } from "../../src/policy/builtins/index.js";
import { createHostBuiltins, hostBuiltins, isHostBuiltinError, missingHostBuiltins } from "../../src/policy/host-builtins/index.js";

describe("host builtin names", () => {
  it("every host name the emitter can write resolves in hostBuiltins", () => {
    for (const b of [...BUILTINS.values()].filter((e) => e.host !== undefined)) {
      for (const strict of [false, true]) {
        const name = hostBuiltinName(b.name, strict);
        expect(typeof hostBuiltins[name]).toBe("function");
        expect(parseHostBuiltinName(name)).toEqual({ name: b.name, strict });
      }
    }
  });

  it("host names never collide with the SDK's own builtins (which would shadow ours)", () => {
    for (const name of Object.keys(hostBuiltins)) expect(["sprintf", "regex.split", "json.is_valid"]).not.toContain(name);
  });
});

describe("wrappers", () => {
  it("lenient: an OPA error makes the call undefined", () => {
    expect(hostBuiltins["toolgate/net.cidr_contains"]!("x", "y")).toBeUndefined();
    expect(hostBuiltins["toolgate/regex.match"]!(1, "a")).toBeUndefined();
  });

  it("strict: an OPA error throws with the code and builtin name", () => {
    let err: unknown;
    try {
      hostBuiltins["toolgate/strict/net.cidr_contains"]!("x", "y");
    } catch (e) {
      err = e;
    }
    expect(isHostBuiltinError(err)).toBe(true);
    expect((err as Error).message).toBe("eval_builtin_error: net.cidr_contains: invalid CIDR address: x");
    expect(() => hostBuiltins["toolgate/strict/regex.match"]!(1, "a")).toThrow("eval_type_error: regex.match: operand 1 must be string but got number");
  });

  it("a call with no arguments (the load-time probe) answers undefined for every builtin of arity >= 1", () => {
    for (const [name, fn] of Object.entries(hostBuiltins)) {
      if (name.endsWith("time.now_ns")) continue;
      expect([name, fn()]).toEqual([name, undefined]);
    }
  });

  it("values pass through unchanged in both modes", () => {
    expect(hostBuiltins["toolgate/glob.match"]!("*.a", [], "x.a")).toBe(true);
    expect(hostBuiltins["toolgate/strict/glob.match"]!("*.a", [], "x.a")).toBe(true);
  });

  it("attached to a module exporting tg_location, strict errors carry the call's location", () => {
    const set = createHostBuiltins();
    const memory = new WebAssembly.Memory({ initial: 1 });
    const text = new TextEncoder().encode("policy.rego:7:3\0");
    new Uint8Array(memory.buffer).set(text, 64);
    set.attach({ exports: { tg_location: () => 64 }, memory });
    expect(() => set.builtins["toolgate/strict/net.cidr_contains"]!("x", "y")).toThrow(
      /^policy\.rego:7:3: eval_builtin_error: net\.cidr_contains: invalid CIDR address: x$/,
    );
    set.attach({ exports: { tg_location: () => 0 }, memory });
    expect(() => set.builtins["toolgate/strict/net.cidr_contains"]!("x", "y")).toThrow(/^eval_builtin_error: /);
    set.attach({ exports: {}, memory });
    expect(() => set.builtins["toolgate/strict/net.cidr_contains"]!("x", "y")).toThrow(/^eval_builtin_error: /);
  });

  it("time.now_ns is fixed between startEvaluation calls", async () => {
    const set = createHostBuiltins();
    set.startEvaluation();
    const a = set.builtins["toolgate/time.now_ns"]!();
    await new Promise((r) => setTimeout(r, 2));
    expect(set.builtins["toolgate/time.now_ns"]!()).toBe(a);
    set.startEvaluation();
    expect(set.builtins["toolgate/time.now_ns"]!()).not.toBe(a);
  });

  it("missingHostBuiltins lists names the provided object cannot serve", () => {
    expect(missingHostBuiltins(["toolgate/regex.match", "toolgate/nope", "custom"], hostBuiltins)).toEqual(["toolgate/nope", "custom"]);
  });
});
