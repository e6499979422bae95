/** Host builtins added for real policies: results and OPA's error texts, end to end through the SDK. */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { evaluate } from "../wasm-emit/sdk-harness.js";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";

const value = async (expr: string, strict = false): Promise<unknown> => {
  const rs = (await evaluate({ modules: ["package t\nimport rego.v1"], query: `x := ${expr}`, strict })) as { x: unknown }[];
  return rs.length === 0 ? undefined : rs[0]!.x;
};

describe("host builtins for real policies", () => {
  it("crypto digests and HMACs are hex of the UTF-8 bytes", async () => {
    expect(await value('crypto.sha256("abc")')).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await value('crypto.md5("abc")')).toBe("900150983cd24fb0d6963f7d28e17f72");
    expect(await value('crypto.sha1("abc")')).toBe("a9993e364706816aba3e25717850c26c9cd0d89d");
    expect(await value('crypto.hmac.sha256("message", "key")')).toBe("6e9ef29b75fffc5b7abae527d58fdadb2fe42e7219011976917343065f58ed4a");
    expect(await value('crypto.hmac.equal("a", "a")')).toBe(true);
    expect(await value('crypto.hmac.equal("a", "ab")')).toBe(false);
  });

  it("semver.compare orders by SemVer 2.0 precedence and names an invalid operand", async () => {
    expect(await value('[semver.compare("1.0.0-alpha", "1.0.0"), semver.compare("1.10.0", "1.9.0"), semver.compare("1.0.0+b1", "1.0.0")]')).toEqual([-1, 1, 0]);
    expect(await value('[semver.is_valid("1.2.3-rc.1"), semver.is_valid("1.2"), semver.is_valid(3)]')).toEqual([true, false, false]);
    await expect(value('semver.compare("1.2", "1.0.0")', true)).rejects.toThrow("eval_builtin_error: semver.compare: operand 1: string 1.2 is not a valid SemVer");
  });

  it("strings.count, indexof_n count code points; trace holds", async () => {
    expect(await value('[strings.count("cheese", "e"), strings.count("five", "")]')).toEqual([3, 5]);
    expect(await value('indexof_n("ÿaaÿa", "a")')).toEqual([1, 2, 4]);
    expect(await value('indexof_n("aaa", "aa")')).toEqual([0, 1]);
    await expect(value('indexof_n("a", "")', true)).rejects.toThrow("eval_builtin_error: indexof_n: empty search character");
    expect(await value('trace("note")')).toBe(true);
  });

  it("bits operate on integers, exactly beyond 2^53", async () => {
    expect(await value("[bits.or(12, 10), bits.and(12, 10), bits.xor(12, 10), bits.negate(12), bits.lsh(1, 60), bits.rsh(1024, 3)]")).toEqual([14, 8, 6, -13, 1152921504606846976, 128]);
    await expect(value("bits.or(1.5, 1)", true)).rejects.toThrow("eval_type_error: bits.or: operand 1 must be integer number but got floating-point number");
  });

  it("io.jwt.decode returns header, payload and the signature in hex", async () => {
    const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZ2VudC0xIiwicm9sZSI6InJlYWRlciJ9.AQID";
    expect(await value(`io.jwt.decode("${jwt}")`)).toEqual([{ alg: "HS256", typ: "JWT" }, { sub: "agent-1", role: "reader" }, "010203"]);
    await expect(value('io.jwt.decode("nodots")', true)).rejects.toThrow("eval_builtin_error: io.jwt.decode: encoded JWT had no period separators");
  });

  it("rand.intn and uuid.rfc4122 answer once per evaluation for the same arguments", async () => {
    const out = compilePolicy({ modules: [], entrypoints: [], queries: [{ name: "q", body: 'x := [uuid.rfc4122("k"), uuid.rfc4122("k"), rand.intn("k", 1000000), rand.intn("k", 1000000)]' }] });
    const host = createHostBuiltins();
    const policy = await loadPolicy(out.wasm!, undefined, host.builtins);
    host.startEvaluation();
    const first = (policy.evaluate(undefined, "q") as { x: [string, string, number, number] }[])[0]!.x;
    expect(first[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first[1]).toBe(first[0]);
    expect(first[3]).toBe(first[2]);
    host.startEvaluation();
    const second = (policy.evaluate(undefined, "q") as { x: [string, string, number, number] }[])[0]!.x;
    expect(second[0]).not.toBe(first[0]);
  });

  it("a real OPA builtin the backend lacks is named as not supported yet", () => {
    const r = compilePolicy({ modules: [{ file: "m.rego", source: 'package t\np := net.cidr_expand("10.0.0.0/30")' }], entrypoints: ["t/p"] });
    expect(r.errors.map((e) => e.message)).toEqual(["OPA builtin net.cidr_expand is not supported yet"]);
  });
});

describe("real OPA builtins without a declaration", () => {
  it("say OPA builtin X is not supported yet, never 'not a builtin'", async () => {
    const { compileModules } = await import("../../codegen/rego/index.js");
    const r = compileModules([{ file: "m.rego", source: "package t\np := providers.aws.sign_req({}, {}, 0)" }]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: "rego_type_error", message: "OPA builtin providers.aws.sign_req is not supported yet", location: { row: 2, col: 6 } });
    expect(r.errors[0]!.hint).toBeUndefined();
  });
});
