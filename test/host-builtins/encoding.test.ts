/**
 * json.unmarshal, base64.decode and base64url.decode run in JavaScript (Go's error
 * texts: test/builtins/error-wording.test.ts); what they decode reaches the policy
 * unchanged, on both engines: integers beyond 2^53 digit for digit, decoded bytes
 * verbatim (invalid UTF-8 included, so base64.encode gives the text back), the first
 * JSON value only when a trailing `null` follows it (as OPA's decoder reads it).
 */
import { describe, expect, it } from "vitest";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { compileWithQuery, evaluateWasm } from "../conformance/engine.js";

async function onBothEngines(query: string, input: unknown): Promise<[unknown, unknown]> {
  const compiled = await compileWithQuery([{ file: "t.rego", source: "package t\n" }], "q", query, true, false);
  if (!compiled.ok) throw new Error(compiled.message);
  const sdk = await evaluateWasm(compiled.wasm, "q", {}, JSON.stringify(input));
  if (!sdk.ok) throw new Error(sdk.message);
  const fast = await FastPolicy.load(compiled.wasm);
  return [sdk.resultSet, fast.evaluate(input, fast.entrypoints["q"]!)];
}

describe("decoding builtins hand their result over unchanged", () => {
  it("json.unmarshal keeps an integer beyond 2^53 digit for digit", async () => {
    const [sdk, fast] = await onBothEngines('x := json.unmarshal(input.s); y := format_int(x[0], 10)', { s: "[12345678901234567891, 1.5e3]" });
    expect(sdk).toEqual([{ x: [12345678901234567891, 1500], y: "12345678901234567891" }]);
    expect(fast).toEqual(sdk);
  });

  it("json.unmarshal reads the first value when a trailing null follows", async () => {
    const [sdk, fast] = await onBothEngines("x := json.unmarshal(input.s)", { s: '{"a": 1} null' });
    expect(sdk).toEqual([{ x: { a: 1 } }]);
    expect(fast).toEqual(sdk);
  });

  it("base64.decode keeps bytes that are not UTF-8, so encoding gives the text back", async () => {
    const bin = Buffer.from([0xe2, 0x82, 0x61, 0xed, 0xa0, 0x80, 0xc0, 0xaf, 0x22, 0x5c, 0x01]).toString("base64");
    const [sdk, fast] = await onBothEngines("x := base64.encode(base64.decode(input.s)); n := count(base64.decode(input.s))", { s: bin });
    expect(sdk).toEqual([{ x: bin, n: 11 }]);
    expect(fast).toEqual(sdk);
  });

  it("base64url.decode restores missing padding and skips newlines", async () => {
    const [sdk, fast] = await onBothEngines("x := base64url.decode(input.a); y := base64.decode(input.b)", { a: "w7_Dvg", b: "aGVs\nbG8=" });
    expect(sdk).toEqual([{ x: "ÿþ", y: "hello" }]);
    expect(fast).toEqual(sdk);
  });
});
