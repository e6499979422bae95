import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/manifest.js";
import { canonicalJson } from "../../src/call-data/canonical-json.js";
import { argsHash, fingerprint } from "../../src/call-data/fingerprint.js";
import { createHash } from "node:crypto";

const reference = (v: unknown): string => {
  const t = canonicalize(v);
  if (t === undefined) throw new Error("not JSON");
  return t;
};

describe("canonical JSON", () => {
  it("is byte-identical to the canonicalize package on any JSON value (RFC 8785)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v as JsonValue)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it("sorts keys by UTF-16 code units and escapes like JSON.stringify", () => {
    const v = { "\u00e9": 1, b: "line\nbreak \"q\" \\ \u007f \u2028", a: [1e21, -0, 0.1, 5e-324], "\ud83d\ude00": null, B: true };
    expect(canonicalJson(v)).toBe(reference(v));
  });

  it("refuses lone surrogates and non-finite numbers, as canonicalize does", () => {
    expect(() => canonicalJson({ a: "\ud800" })).toThrow(TypeError);
    expect(() => canonicalJson({ ["\udc00"]: 1 })).toThrow(TypeError);
    expect(() => canonicalJson([Number.NaN])).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => reference({ a: "\ud800" })).toThrow();
  });

  it("keeps the fingerprint and argument hash of the published definition (SHA-256 of the canonicalize text)", () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), (tenant, args) => {
        const a = args as Record<string, JsonValue>;
        const sha = (v: unknown) => createHash("sha256").update(reference(v)).digest("hex");
        expect(argsHash(tenant, "reserve_funds", a)).toBe(sha({ tenant, tool: "reserve_funds", args: a }));
        const keys = Object.keys(a).slice(0, 1);
        const picked = Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
        expect(fingerprint(tenant, "reserve_funds", a, keys.length === 0 ? [] : keys)).toBe(sha({ tenant, tool: "reserve_funds", args: keys.length === 0 ? a : picked }));
      }),
      { numRuns: 500 },
    );
  });
});
