/**
 * The fast engine's input template (src/policy/input-template.ts): member values are
 * patched into cells kept from call to call, so a sequence of calls must decide as
 * the SDK engine on every call, whatever changed since the previous one: shape
 * mismatches (a member absent, undefined, of another type), unicode and long strings,
 * large and unsafe numbers, floats, members named like Object.prototype properties.
 * The policy echoes what it reads, so any stale or misplaced cell shows in the reason.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import type { PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import { FastPolicy, loadFastEngine } from "../../src/policy/fast-engine.js";
import type { FastPolicyEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

const POLICY = `package p

echo := [input.a, input.b.c, input.b.d, input.b.constructor, input.n, input.s, type_name(input.t), input.b.e.f]

decision := {"allow": input.ok == true, "reason": json.marshal(echo), "requires_approval": false} if echo
decision := {"allow": false, "reason": "partial", "requires_approval": false} if not echo
`;

let sdk: PolicyEngine;
let fast: FastPolicyEngine;
let plain: FastPolicy;

beforeAll(async () => {
  const r = compilePolicy({ modules: [{ file: "p.rego", source: POLICY }], entrypoints: ["p/decision"] });
  expect(r.errors).toEqual([]);
  sdk = await loadOpaWasmEngine({ wasm: r.wasm!, entrypoint: "p/decision" });
  fast = await loadFastEngine({ wasm: r.wasm!, entrypoint: "p/decision" });
  plain = await FastPolicy.load(r.wasm!, { templates: false });
});

const ABSENT = Symbol("absent");
const PROTO_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty"];

/** Scalars and small values of every kind the writers treat differently. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("same", "same", "Same", "aaa", "aab", "bab", "x", "", "é", "😀", "a\u0000b", "\uD800", "k".repeat(128), "k".repeat(129), "ß".repeat(60)),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ minLength: 100, maxLength: 200 }),
  fc.constantFrom(0, -0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53, 2 ** 64, 1.5, -0.25, 1e21, 1e-7),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(true, false, null),
  fc.constant(ABSENT),
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 2 }),
  fc.dictionary(fc.constantFrom(...PROTO_KEYS, "c", "f"), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

function put(o: Record<string, unknown>, k: string, v: unknown): void {
  if (v !== ABSENT) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

const nested: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ c: value, d: value, constructor: value, e: fc.oneof(fc.record({ f: value }), value), extra: value }) },
  { weight: 1, arbitrary: value },
);

const input: fc.Arbitrary<unknown> = fc
  .record({ a: value, b: nested, n: value, s: value, t: value, ok: fc.constantFrom(true, false, ABSENT), extra: value })
  .map((r) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r)) {
      if (k === "b" && typeof v === "object" && v !== null && !Array.isArray(v) && "c" in v) {
        const b: Record<string, unknown> = {};
        for (const [bk, bv] of Object.entries(v as Record<string, unknown>)) {
          if (bk === "e" && typeof bv === "object" && bv !== null && "f" in bv) {
            const e: Record<string, unknown> = {};
            put(e, "f", (bv as { f: unknown }).f);
            put(b, "e", e);
          } else put(b, bk, bv);
        }
        put(o, k, b);
      } else put(o, k, v);
    }
    return o;
  });

describe("input template", () => {
  it("is in use for the echo policy", () => {
    expect(fast.policy.usesTemplate(fast.entrypointId)).toBe(true);
    expect(plain.usesTemplate(fast.entrypointId)).toBe(false);
  });

  it("every call of a sequence decides as the SDK and as the projected writer", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(input, { minLength: 1, maxLength: 12 }), async (inputs) => {
        for (const i of inputs) {
          const want = await sdk.evaluate(i as PolicyInput);
          expect(fast.decide(i as PolicyInput)).toEqual(want);
          expect(plain.decide(i, fast.entrypointId)).toEqual(want);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("a member's text changing between calls (same length, longer, non-ASCII, back again) is seen every time", async () => {
    // A text the cell cannot hold empties it: the empty string right after must still read as "".
    const seq = ["abc", "abd", "abd", "abcdefgh", "é", "abc", "k".repeat(129), "abc", "k".repeat(128), "abc", "é", "", "k".repeat(129), "", "x\u0080", "", "abcde", "abcd", "abcdefghi"];
    for (const s of seq) {
      const i = { a: s, b: { c: s, d: 1, constructor: s, e: { f: s } }, n: s, s, t: s, ok: true };
      expect([s, fast.decide(i as unknown as PolicyInput)]).toEqual([s, await sdk.evaluate(i as unknown as PolicyInput)]);
    }
  });

  it("memory growing while a member is written (a large value read whole) leaves the later members right", async () => {
    const before = fast.policy.memoryBytes;
    for (const size of [1, 300_000, 5, 900_000]) {
      const big = Array.from({ length: size }, (_, i) => i);
      const i = { a: big, b: { c: "c", d: "d", constructor: "k", e: { f: "f" } }, n: 12, s: `s${size}`, t: "t", ok: true };
      const got = fast.decide(i as unknown as PolicyInput);
      expect(got.allow).toBe(true);
      expect(got.reason.endsWith(`"c","d","k",12,"s${size}","string","f"]`)).toBe(true);
    }
    expect(fast.policy.memoryBytes).toBeGreaterThan(before);
  });

  it("an inherited member name is read only as an own member", async () => {
    const i = { a: 1, b: { c: 1, d: 2, e: { f: 3 } }, n: 1, s: "s", t: "t", ok: true };
    const want = await sdk.evaluate(i as unknown as PolicyInput);
    expect(want.reason).toBe("partial");
    expect(fast.decide(i as unknown as PolicyInput)).toEqual(want);
    const own = { ...i, b: { ...i.b } };
    Object.defineProperty(own.b, "constructor", { value: "own", enumerable: true });
    expect(fast.decide(own as unknown as PolicyInput)).toEqual(await sdk.evaluate(own as unknown as PolicyInput));
    expect(fast.decide(own as unknown as PolicyInput).reason).toContain('"own"');
  });
});
