/**
 * A module that needs toolgate's host builtins fails AT LOAD in the plain SDK,
 * naming the builtin, and works when `hostBuiltins` is passed; the probe the
 * module makes from entrypoints() is what turns the SDK's call-time failure into a
 * load-time one. Strict vs lenient host errors reach the caller as OPA does.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { createHostBuiltins, hostBuiltins } from "../../src/policy/host-builtins/index.js";

const source = `package t
import rego.v1
glob_ok := glob.match("*.example.com", [], input.host)
in_net := net.cidr_intersects("10.0.0.0/8", input.ip)
`;

const compiled = new Map<boolean, Uint8Array>();
function compile(strict: boolean): Uint8Array {
  const hit = compiled.get(strict);
  if (hit !== undefined) return hit;
  const r = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: ["t/glob_ok", "t/in_net"], strictBuiltinErrors: strict });
  expect(r.errors).toEqual([]);
  compiled.set(strict, r.wasm!);
  return r.wasm!;
}

const message = (e: unknown): string => (typeof e === "string" ? e : String((e as { message?: unknown }).message ?? e));

describe("load-time failure without toolgate's host builtins", () => {
  it.each([false, true])("plain SDK rejects in loadPolicy, naming the builtin (strict=%s)", async (strict) => {
    const wasm = compile(strict);
    const err = await loadPolicy(wasm).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    expect(message(err)).toMatch(new RegExp(`^not implemented: built-in function \\d+: toolgate/${strict ? "strict/" : ""}(glob\\.match|net\\.cidr_intersects)$`));
  });

  it("a host object lacking one builtin fails at load naming that one", async () => {
    const partial = { ...hostBuiltins };
    delete partial["toolgate/net.cidr_intersects"];
    const err = await loadPolicy(compile(false), undefined, partial).then(
      () => null,
      (e: unknown) => e,
    );
    expect(message(err)).toMatch(/^not implemented: built-in function \d+: toolgate\/net\.cidr_intersects$/);
  });

  it("loads and decides with hostBuiltins", async () => {
    const p = await loadPolicy(compile(false), undefined, hostBuiltins);
    expect(p.evaluate({ host: "api.example.com", ip: "10.1.2.3" }, "t/glob_ok")).toEqual([{ result: true }]);
    expect(p.evaluate({ host: "a.b.example.com", ip: "10.1.2.3" }, "t/glob_ok")).toEqual([{ result: false }]);
    expect(p.evaluate({ host: "x", ip: "10.1.2.0/24" }, "t/in_net")).toEqual([{ result: true }]);
  });

  it("a module without host builtins still loads in the plain SDK", async () => {
    const r = compilePolicy({ modules: [{ file: "c.rego", source: "package c\nx := 1\n" }], entrypoints: ["c/x"] });
    const p = await loadPolicy(r.wasm!);
    expect(p.evaluate({}, "c/x")).toEqual([{ result: 1 }]);
  });

  it("lenient: a host builtin error leaves the rule undefined", async () => {
    const p = await loadPolicy(compile(false), undefined, hostBuiltins);
    expect(p.evaluate({ ip: "not-an-ip" }, "t/in_net")).toEqual([]);
  });

  it("strict: a host builtin error aborts the evaluation with OPA's text", async () => {
    const p = await loadPolicy(compile(true), undefined, hostBuiltins);
    expect(() => p.evaluate({ ip: "not-an-ip" }, "t/in_net")).toThrow(/^eval_builtin_error: net\.cidr_intersects: invalid CIDR address: not-an-ip$/);
  });

  it("strict, attached: the error starts with the call's location, as native errors do", async () => {
    const host = createHostBuiltins();
    const p = await loadPolicy(compile(true), undefined, host.builtins);
    host.attach({ exports: (p.wasmInstance as WebAssembly.Instance).exports, memory: p.mem });
    expect(() => p.evaluate({ ip: "not-an-ip" }, "t/in_net")).toThrow(/^t\.rego:4:\d+: eval_builtin_error: net\.cidr_intersects: invalid CIDR address: not-an-ip$/);
  });
});
