/**
 * The module's JSON parser collects the members of arrays and objects on a stack
 * sized by the text and allocates each collection once, sorts small objects' keys by
 * an 8-byte prefix, and scans strings eight bytes at a time. What it builds must not
 * depend on any of that: key order (bytewise, prefixes shared beyond eight bytes,
 * shorter first, NUL bytes), the last of duplicate keys, collections larger than the
 * stack (they move to the heap), nesting, and strings whose quote, backslash or
 * control character sits at every offset of an eight-byte word.
 */
import { describe, expect, it } from "vitest";
import { loadRuntime } from "./harness.js";

const rt = loadRuntime();
const roundTrip = (json: string): string | undefined => rt.dump(rt.parse(json));

/** What OPA's parser gives: keys sorted by UTF-8 bytes, the last duplicate wins. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    const enc = new TextEncoder();
    const keys = Object.keys(v).sort((a, b) => Buffer.compare(enc.encode(a), enc.encode(b)));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

describe("JSON parse: collections and strings", () => {
  it("orders keys sharing their first eight bytes, prefixes of each other and NUL bytes bytewise", () => {
    const keys = ["policy_version", "policy_code_version", "policy_data_version", "policy_", "policy", "policy\u0000", "p", "", "args", "args_hash", "é", "z\u0000a", "z"];
    const obj = Object.fromEntries(keys.map((k, i) => [k, i]));
    expect(roundTrip(JSON.stringify(obj))).toBe(canonical(obj));
    expect(roundTrip(JSON.stringify(Object.fromEntries([...keys].reverse().map((k, i) => [k, i]))))).toBe(
      canonical(Object.fromEntries([...keys].reverse().map((k, i) => [k, i]))),
    );
  });

  it("keeps the last of duplicate keys in small and large objects", () => {
    expect(roundTrip('{"policy_b":1,"policy_a":2,"policy_b":3}')).toBe('{"policy_a":2,"policy_b":3}');
    const many = Array.from({ length: 40 }, (_, i) => `"key_${i % 20}":${i}`).join(",");
    const want = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key_${i}`, i + 20]));
    expect(roundTrip(`{${many}}`)).toBe(canonical(want));
  });

  it("builds collections larger than the member stack, nested in one another", () => {
    const big = Array.from({ length: 9000 }, (_, i) => i);
    const obj = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${(i * 7919) % 5000}`, [i, { a: i }]]));
    const doc = { big, obj, tail: [big.slice(0, 3), { z: 1, a: 2 }] };
    expect(roundTrip(JSON.stringify(doc))).toBe(canonical(doc));
    // a short text: the stack holds few slots, so even small collections move to the heap
    expect(roundTrip("[[1,2,3,4,5,6]]")).toBe("[[1,2,3,4,5,6]]");
    expect(roundTrip('{"b":{"d":1,"c":2},"a":[3,2,1]}')).toBe('{"a":[3,2,1],"b":{"c":2,"d":1}}');
  });

  it("finds a quote, an escape or a control character at every offset of an eight-byte word", () => {
    for (let at = 0; at < 17; at++) {
      const pad = "x".repeat(at);
      expect(roundTrip(JSON.stringify(`${pad}"tail`))).toBe(JSON.stringify(`${pad}"tail`));
      expect(roundTrip(JSON.stringify(`${pad}\\tail`))).toBe(JSON.stringify(`${pad}\\tail`));
      expect(roundTrip(JSON.stringify(`${pad}\ntail`))).toBe(JSON.stringify(`${pad}\ntail`));
      expect(roundTrip(`"${pad}`)).toBeUndefined(); // unterminated
      expect(rt.parse(`"${pad}\u0001"`)).toBe(0); // a raw control character
      expect(roundTrip(JSON.stringify(`${pad}é😀${pad}`))).toBe(JSON.stringify(`${pad}é😀${pad}`));
    }
  });
});
