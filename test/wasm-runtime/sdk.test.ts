import { describe, expect, it } from "vitest";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { buildFixture } from "./plan-fixture.js";

const paths = [
  { name: "ABI 1.2 opa_eval", legacy: false },
  { name: "legacy opa_eval_ctx_*", legacy: true },
] as const;

describe.each(paths)("runtime.wasm in the unmodified SDK ($name)", ({ legacy }) => {
  const bytes = buildFixture({ legacy });

  it("declares the memory the SDK can provide and the ABI version", async () => {
    const mod = new WebAssembly.Module(bytes);
    const imports = WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`).sort();
    expect(imports).toEqual(["env.memory", "env.opa_abort"]);
    const policy = await loadPolicy(bytes);
    expect(policy.minorVersion).toBe(legacy ? 1 : 2);
    expect(policy.entrypoints).toEqual({
      "test/echo": 0, "test/const": 1, "test/data": 2, "test/builtin": 3, "test/conflict": 4,
    });
  });

  it("echoes input, returns constants and data as result sets", async () => {
    const policy = await loadPolicy(bytes);
    policy.setData({ users: { alice: { roles: ["admin"] } } });
    const input = { z: 1, a: [true, null, "é\u0000\"<"], n: -12345678901234, f: 0.1 };
    expect(policy.evaluate(input, "test/echo")).toEqual([{ result: input }]);
    expect(policy.evaluate(undefined, "test/echo")).toEqual([]);
    expect(policy.evaluate({}, "test/const")).toEqual([{ result: { a: null, b: [1, 2.5, "x"] } }]);
    expect(policy.evaluate({}, "test/data")).toEqual([{ result: { users: { alice: { roles: ["admin"] } } } }]);
  });

  it("keeps memory flat across many evaluations", async () => {
    const policy = await loadPolicy(bytes);
    policy.setData({ d: "x".repeat(1000) });
    const input = { payload: "y".repeat(20_000), list: Array.from({ length: 500 }, (_, i) => i) };
    policy.evaluate(input, "test/echo");
    const size = policy.mem.buffer.byteLength;
    for (let i = 0; i < 300; i++) policy.evaluate(input, "test/echo");
    expect(policy.mem.buffer.byteLength).toBe(size);
  });

  it("raises run-time errors with a readable code", async () => {
    const policy = await loadPolicy(bytes);
    expect(() => policy.evaluate({}, "test/conflict")).toThrow(
      "policy.rego:3:5: eval_conflict_error: complete rules must not produce multiple outputs",
    );
  });
});

describe("large documents", () => {
  it("grows memory for data and input beyond the initial 5 pages", async () => {
    const policy = await loadPolicy(buildFixture());
    const data = { items: Array.from({ length: 20_000 }, (_, i) => ({ id: `item-${i}`, n: i, f: i / 7 })) };
    policy.setData(data);
    const input = { blob: "z".repeat(1_000_000) };
    expect(policy.evaluate(input, "test/echo")).toEqual([{ result: input }]);
    expect(policy.evaluate({}, "test/data")).toEqual([{ result: data }]);
    expect(policy.mem.buffer.byteLength).toBeGreaterThan(5 * 65536);
  });
});

describe("native builtins through the SDK", () => {
  const builtin = { exportName: "opa_agg_count", arity: 1 } as const;

  it("returns results and undefined without strict errors", async () => {
    const policy = await loadPolicy(buildFixture({ builtin }));
    expect(policy.evaluate({ args: [["a", "b"]] }, "test/builtin")).toEqual([{ result: 2 }]);
    expect(policy.evaluate({ args: [5] }, "test/builtin")).toEqual([]);
  });

  it("aborts with eval_type_error when the module sets strict builtin errors", async () => {
    const policy = await loadPolicy(buildFixture({ builtin, strict: true }));
    expect(policy.evaluate({ args: ["héllo"] }, "test/builtin")).toEqual([{ result: 5 }]);
    expect(() => policy.evaluate({ args: [5] }, "test/builtin")).toThrow(
      "eval_type_error: count: operand 1 must be one of {array, object, set, string} but got number",
    );
  });
});
