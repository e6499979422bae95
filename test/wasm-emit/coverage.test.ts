/** `coverage: true`: one byte per point, set when evaluation reaches an expression or a head produces. */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";

const source = `package t
allow if {
  input.a == 1
  input.b == 2
}
default deny := false
deny if input.c
f(x) := x
`;

describe("coverage", () => {
  it("records reached expressions and producing heads; off by default", async () => {
    const plain = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: ["t/allow", "t/deny"] });
    expect(plain.coverage).toBeUndefined();
    const out = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: ["t/allow", "t/deny"], coverage: true });
    expect(out.errors).toEqual([]);
    const points = out.coverage!.points;
    expect(points.map((p) => `${p.row}:${p.kind}`)).toEqual(["2:head", "3:expr", "4:expr", "6:head", "7:head", "7:expr", "8:head", "8:expr"]);
    const policy = await loadPolicy(out.wasm!);
    const exports = (policy as unknown as { wasmInstance: WebAssembly.Instance; mem: WebAssembly.Memory });
    const ptr = (exports.wasmInstance.exports["toolgate_coverage_ptr"] as () => number)();
    const hits = (): string[] => points.filter((_, i) => new Uint8Array(exports.mem.buffer)[ptr + i] === 1).map((p) => `${p.row}:${p.kind}`);
    expect(hits()).toEqual([]);
    policy.evaluate({ a: 2 }, "t/allow");
    expect(hits()).toEqual(["3:expr"]);
    policy.evaluate({ a: 1, b: 2 }, "t/allow");
    policy.evaluate({}, "t/deny");
    expect(hits()).toEqual(["2:head", "3:expr", "4:expr", "6:head", "7:expr"]);
  });
});
