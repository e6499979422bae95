import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/manifest.js";
import { argsHash, callHashes, fingerprint } from "../../src/call-data/fingerprint.js";

const cases: { args: JsonObject; fields: string[] }[] = [
  { args: { account_id: "a", amount: 1 }, fields: [] },
  { args: { account_id: "a", amount: 1 }, fields: ["amount", "account_id"] },
  { args: { account_id: "a", amount: 1, memo: "m" }, fields: ["account_id", "amount"] },
  { args: { memo: "m", account_id: "a" }, fields: ["amount"] },
  { args: { b: [1, { y: 2, x: null }], a: "é\u2028", c: true }, fields: ["c", "b", "b"] },
  { args: {}, fields: ["x"] },
  { args: { z: 1 }, fields: ["a"] },
  { args: JSON.parse('{"__proto__":[],"a":1}') as JsonObject, fields: ["__proto__"] },
  { args: { a: 1 }, fields: ["toString", "a"] },
];

describe("a call's fingerprint and argument hash, computed together", () => {
  it("equal fingerprint() and argsHash() computed apart, whether or not every argument is a fingerprint field", () => {
    for (const c of cases) {
      const h = callHashes("t1", "tool", c.args, c.fields);
      expect(h.fingerprint).toBe(fingerprint("t1", "tool", c.args, c.fields));
      expect(h.args_hash).toBe(argsHash("t1", "tool", c.args));
    }
  });

  it("differ when an argument outside the fingerprint fields is present, and agree when none is", () => {
    const some = callHashes("t1", "tool", { account_id: "a", memo: "m" }, ["account_id"]);
    expect(some.fingerprint).not.toBe(some.args_hash);
    const all = callHashes("t1", "tool", { account_id: "a" }, ["account_id", "amount"]);
    expect(all.fingerprint).toBe(all.args_hash);
  });
});
