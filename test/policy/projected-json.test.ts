/**
 * The SDK engine's projected input: the JSON text jsonProjection writes is, after
 * parsing, JSON.stringify's view of the value cut down to the tree, with nothing the
 * tree names left out. Values JSON.stringify would see differently (toJSON, class
 * instances) are written whole.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InputPaths } from "../../src/policy/abi.js";
import { jsonProjection as bytesProjection } from "../../src/policy/projected-json.js";

/** The projection's bytes as text (undefined stays undefined). */
const jsonProjection = (tree: InputPaths) => {
  const project = bytesProjection(tree);
  return (v: unknown): string | undefined => {
    const b = project(v);
    return b === undefined ? undefined : new TextDecoder("utf-8", { fatal: true }).decode(b);
  };
};

/** JSON.stringify's view of `v`, cut to `tree` (object nodes only where the view is an object). */
function cut(v: unknown, tree: InputPaths): unknown {
  if (tree === true || typeof v !== "object" || v === null || Array.isArray(v)) return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(tree)) if (Object.prototype.hasOwnProperty.call(o, k)) out[k] = cut(o[k], tree[k]!);
  return out;
}
const viewOf = (v: unknown): unknown => JSON.parse(JSON.stringify(v) as string);

// Names Object.prototype also has are part of it: a tree is JSON, so they are plain members there.
const tree = JSON.parse('{"tool": true, "args": {"amount": true, "to": {"iban": true}}, "principal": {"roles": true}, "constructor": true, "toString": {"x": true}}') as InputPaths;

describe("jsonProjection (the SDK engine's projected input)", () => {
  it("writes exactly the tree's members of JSON.stringify's view, on any JSON value", () => {
    const project = jsonProjection(tree);
    const member = fc.jsonValue({ maxDepth: 3 });
    const input = fc.record(
      {
        tool: member,
        args: fc.oneof(member, fc.record({ amount: member, to: fc.oneof(member, fc.record({ iban: member, bic: member })), memo: member }, { requiredKeys: [] })),
        principal: fc.oneof(member, fc.record({ roles: member, user: member }, { requiredKeys: [] })),
        constructor: member,
        toString: fc.oneof(member, fc.record({ x: member, y: member }, { requiredKeys: [] })),
        other: member,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(input, (v) => {
        const text = project(v);
        expect(text).toBeDefined();
        // Object.defineProperty'd names such as "constructor" come through JSON.parse as own members.
        expect(JSON.parse(text!)).toEqual(cut(viewOf(v), tree));
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  it("never reads a name from Object.prototype as a member", () => {
    const text = jsonProjection(tree)({ tool: "t" });
    expect(JSON.parse(text!)).toEqual({ tool: "t" });
  });

  it("leaves out members JSON.stringify leaves out (undefined, functions, symbols)", () => {
    const text = jsonProjection(tree)({ tool: undefined, args: { amount: () => 1, to: Symbol("x") }, principal: { roles: ["a"] } });
    expect(JSON.parse(text!)).toEqual({ args: {}, principal: { roles: ["a"] } });
  });

  it("writes a value with toJSON, or of another class, whole, as JSON.stringify sees it", () => {
    const at = new Date(0);
    class Args {
      amount = 5;
      hidden = "kept";
    }
    const text = jsonProjection(tree)({ tool: at, args: new Args(), principal: { toJSON: () => ({ roles: ["r"], user: "u" }) } });
    expect(JSON.parse(text!)).toEqual({ tool: at.toJSON(), args: { amount: 5, hidden: "kept" }, principal: { roles: ["r"], user: "u" } });
  });

  it("escapes member names and string values as JSON does", () => {
    const odd: InputPaths = { 'a"b\\c\u2028': true, "é😀": true };
    const v = { 'a"b\\c\u2028': "line\nbreak \u0000", "é😀": "😀" };
    expect(JSON.parse(jsonProjection(odd)(v)!)).toEqual(v);
  });

  it("writes a whole value byte for byte as JSON.stringify does, odd values included", () => {
    const project = jsonProjection(true);
    const odd = fc.anything({
      withBoxedValues: true, withMap: true, withSet: true, withDate: true, withSparseArray: true, withNullPrototype: true,
      withTypedArray: true, withObjectString: true, withUnicodeString: true, maxDepth: 3,
    });
    fc.assert(
      fc.property(odd, fc.constantFrom("\u2028", "\ud800", "\u007f", "\u0000", "é", "😀", "-0"), (v, s) => {
        expect(project(v)).toBe(JSON.stringify(v));
        const text = s === "-0" ? -0 : s;
        expect(project([text, { [String(text)]: text }])).toBe(JSON.stringify([text, { [String(text)]: text }]));
      }),
      { numRuns: 500, seed: 11 },
    );
    expect(project([undefined, () => 1, NaN, Infinity])).toBe("[null,null,null,null]");
  });

  it("reuses a buffer only for a later input of the same length, holding that input's bytes", () => {
    const project = bytesProjection(tree);
    const dec = new TextDecoder();
    const a = project({ tool: "aa" })!;
    expect(dec.decode(a)).toBe('{"tool":"aa"}');
    const b = project({ tool: "bb" })!;
    expect(b).toBe(a);
    expect(dec.decode(b)).toBe('{"tool":"bb"}');
    const c = project({ tool: "ccc" })!;
    expect(c).not.toBe(a);
    expect(dec.decode(c)).toBe('{"tool":"ccc"}');
    expect(c.byteLength).toBe(14);
  });

  it("answers undefined where JSON.stringify does (a whole value that is not JSON)", () => {
    expect(jsonProjection(true)(undefined)).toBeUndefined();
    expect(jsonProjection(true)(() => 1)).toBeUndefined();
  });
});
