/** Custom builtins: declarations checked, type checked by the front end, emitted as host calls, run in both engines. */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { compileModules } from "../../codegen/rego/index.js";
import { defineBuiltins, isCustomBuiltinError, toCustomBuiltins, type CustomBuiltins } from "../../src/policy/builtins/index.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

/** Regal-like helpers (regal's bundle declares regal.last, regal.is_formatted ...). */
const regal = defineBuiltins({
  "regal.last": { args: ["array"], result: "any", impl: (xs) => xs[xs.length - 1] },
  "regal.count_words": { args: ["string"], result: "number", impl: (s) => s.split(/\s+/).filter(Boolean).length },
  "acme.fail": { args: ["string"], result: "boolean", impl: (s) => { throw new Error(`lookup of ${s} failed`); } },
  "acme.wrong_result": { args: [], result: "string", impl: () => 42 },
  "acme.big": { args: [], result: "number", impl: () => 2n ** 70n },
});

function compile(source: string, entrypoints: string[], builtins: CustomBuiltins | null = regal, strict = false) {
  return compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints, optimize: false, strictBuiltinErrors: strict, ...(builtins === null ? {} : { builtins }) });
}

async function run(source: string, entrypoint: string, input: unknown = {}, strict = false): Promise<unknown> {
  const out = compile(source, [entrypoint], regal, strict);
  expect(out.errors).toEqual([]);
  const host = createHostBuiltins({ builtins: regal });
  const policy = await loadPolicy(out.wasm!, undefined, host.builtins);
  host.attach({ exports: (policy.wasmInstance as WebAssembly.Instance).exports, memory: policy.mem });
  host.startEvaluation();
  const r = policy.evaluate(input, entrypoint) as { result: unknown }[];
  return r.length === 0 ? undefined : r[0]!.result;
}

describe("defineBuiltins", () => {
  const invalid = (specs: unknown): string => {
    try {
      toCustomBuiltins(specs);
    } catch (e) {
      expect(isCustomBuiltinError(e)).toBe(true);
      return (e as Error).message;
    }
    throw new Error("accepted");
  };

  it("rejects each malformed declaration, naming the builtin and what to change", () => {
    expect(invalid({ "a.b": { args: ["strin"], result: "any", impl: () => 1 } })).toBe(
      'custom builtin a.b: argument 1: unknown type "strin"; use one of any, number, string, boolean, null, array, object, set, or an array of them for a union',
    );
    expect(invalid({ "a.b": { args: "string", result: "any", impl: () => 1 } })).toBe('custom builtin a.b: args must be an array of types, e.g. ["string"] ([] for none)');
    expect(invalid({ "a.b": { args: [], result: "set", impl: () => [] } })).toMatch(/^custom builtin a\.b: result: a set cannot be returned from JavaScript/);
    expect(invalid({ "a.b": { args: [], result: "any" } })).toBe("custom builtin a.b: impl must be a function, got undefined");
    expect(invalid({ "a.b": { args: [], result: "any", impl: () => 1, doc: "x" } })).toBe("custom builtin a.b: unknown field doc (fields: args, result, impl, nondeterministic)");
    expect(invalid({ "a-b": { args: [], result: "any", impl: () => 1 } })).toBe('custom builtin a-b: the name must be a dotted Rego reference such as "acme.lookup"');
    expect(invalid({ "input.x": { args: [], result: "any", impl: () => 1 } })).toBe("custom builtin input.x: the name must not start with input or data");
    expect(invalid({ "json.patch": { args: ["any", "array"], result: "any", impl: () => 1 } })).toMatch(/^custom builtin json\.patch: an OPA builtin of that name exists/);
    expect(invalid(7)).toBe("expected an object of builtin name -> { args, result, impl }, got number");
  });

  it("a name OPA has but toolgate does not support yet may be supplied", () => {
    expect(toCustomBuiltins({ "crypto.x509.parse_certificates": { args: ["string"], result: "array", impl: () => [] } }).entries.map((e) => e.name)).toEqual(["crypto.x509.parse_certificates"]);
  });
});

describe("custom builtins in the front end", () => {
  const check = (source: string, builtins?: CustomBuiltins) =>
    compileModules([{ file: "p.rego", source }], builtins === undefined ? {} : { builtins }).errors.map((e) => `${e.location.row}:${e.location.col} ${e.code}: ${e.message}`);

  it("without the declaration a call is an undefined function; with it the module checks", () => {
    const src = "package p\nx := regal.last([1, 2])";
    expect(check(src)).toEqual(["2:6 rego_type_error: undefined function regal.last"]);
    expect(check(src, regal)).toEqual([]);
  });

  it("arity and literal argument types are checked against the declaration", () => {
    expect(check("package p\nx := regal.last([1], 2)", regal)[0]).toMatch(/^2:6 rego_type_error: .*regal\.last/);
    expect(check('package p\nx := regal.last("abc")', regal)[0]).toMatch(/^2:\d+ rego_type_error: .*regal\.last.*array/);
  });

  it("an unsupported OPA builtin supplied as a custom one is no longer reported as unsupported", () => {
    const src = 'package p\nx := crypto.x509.parse_certificates("pem")';
    expect(check(src)).toEqual(["2:6 rego_type_error: OPA builtin crypto.x509.parse_certificates is not supported yet"]);
    const supplied = toCustomBuiltins({ "crypto.x509.parse_certificates": { args: ["string"], result: "array", impl: () => [] } });
    expect(check(src, supplied)).toEqual([]);
  });

  it("compilePolicy without the custom builtins rejects the call", () => {
    expect(compile("package p\nx := regal.last([1])", ["p/x"], null).errors.map((e) => e.message)).toEqual(["undefined function regal.last"]);
  });
});

describe("custom builtins at evaluation", () => {
  it("run through the host with the declared operands (opa-wasm SDK)", async () => {
    expect(await run("package p\nx := regal.last(input.xs)", "p/x", { xs: [1, 2, 3] })).toBe(3);
    expect(await run("package p\nx := regal.count_words(input.s)", "p/x", { s: "a b  c" })).toBe(3);
    expect(await run("package p\nx := acme.big()", "p/x")).toBe(2 ** 70);
  });

  it("an operand of the wrong type is a located eval_type_error, in lenient mode too (never undefined)", async () => {
    await expect(run("package p\nx := regal.last(input.xs)", "p/x", { xs: "abc" })).rejects.toThrow(
      /^p\.rego:2:6: eval_type_error: regal\.last: operand 1 must be array but got string$/,
    );
  });

  it("an implementation that throws is a located eval_builtin_error in both modes", async () => {
    for (const strict of [false, true]) {
      await expect(run("package p\nx := acme.fail(input.s)", "p/x", { s: "k" }, strict)).rejects.toThrow(
        /^p\.rego:2:6: eval_builtin_error: acme\.fail: lookup of k failed$/,
      );
    }
  });

  it("a call can be replaced with `with`, as an OPA builtin's", async () => {
    expect(await run('package p\nx := y if { y := regal.last([1]) with regal.last as "mocked" }', "p/x")).toBe("mocked");
  });

  it("a result of the wrong type is an eval_builtin_error", async () => {
    await expect(run("package p\nx := acme.wrong_result()", "p/x")).rejects.toThrow(/eval_builtin_error: acme\.wrong_result: the result must be string but got number$/);
  });

  it("both engines load them from their options and decide with them; without them loading fails", async () => {
    const source = 'package toolgate.authz\ndecision := {"allow": regal.last(input.args.flags), "reason": "ok", "requires_approval": false}';
    const out = compile(source, ["toolgate/authz/decision"]);
    expect(out.errors).toEqual([]);
    const input = { args: { flags: [false, true] } } as never;
    const engines = [
      await loadOpaWasmEngine({ wasm: out.wasm!, entrypoint: "toolgate/authz/decision", builtins: regal }),
      await loadFastEngine({ wasm: out.wasm!, entrypoint: "toolgate/authz/decision", builtins: regal }),
    ];
    for (const e of engines) expect((await e.evaluate(input)).allow).toBe(true);
    await expect(loadOpaWasmEngine({ wasm: out.wasm!, entrypoint: "toolgate/authz/decision" })).rejects.toThrow(
      "policy.wasm does not load: not implemented: built-in function 0: toolgate/regal.last (a custom builtin: pass the policy's custom builtins as the engine's `builtins` option)",
    );
  });
});
