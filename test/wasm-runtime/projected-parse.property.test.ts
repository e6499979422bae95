/**
 * `opa_eval` parses only the parts of its input the entrypoint can read (the module's
 * input-paths table) and checks the rest without building it. Property: on any text,
 * the projected route (opa_eval) and the whole-document route (opa_json_parse, then
 * eval and opa_json_dump) of the same module agree: both reject it, or both accept it
 * and give the same result set. Texts are random JSON written with random whitespace,
 * escapes (keys too) and repeated keys, and mutations of them (a byte replaced,
 * inserted or removed), so malformed text inside members nobody reads is covered.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";
import { policyInputs } from "../helpers/policy-inputs.js";
import type { SdkInternals } from "../helpers/sdk-internals.js";

const root = join(import.meta.dirname, "..", "..");

interface Loaded extends SdkInternals {
  readonly entrypoints: Record<string, number>;
  setData(d: unknown): void;
}

/** The two routes over one instance: each returns the result set's JSON text, or null when the input is rejected. */
function routes(p: Loaded): { projected: (ep: number, text: Uint8Array) => string | null; whole: (ep: number, text: Uint8Array) => string | null; heapUsed: (ep: number, text: Uint8Array) => number } {
  const ex = p.wasmInstance.exports;
  const put = (text: Uint8Array): void => new Uint8Array(p.mem.buffer).set(text, p.dataHeapPtr);
  const cString = (addr: number): string => {
    const buf = new Uint8Array(p.mem.buffer);
    let end = addr;
    while (buf[end] !== 0) end++;
    return new TextDecoder().decode(buf.subarray(addr, end));
  };
  const opaEval = (ep: number, text: Uint8Array): number => {
    put(text);
    return ex.opa_eval(0, ep, p.dataAddr, p.dataHeapPtr, text.length, p.dataHeapPtr + text.length, 0);
  };
  return {
    projected(ep, text) {
      let ret: number;
      try {
        ret = opaEval(ep, text);
      } catch (e) {
        if (String(e).includes("not valid JSON")) return null;
        throw e;
      }
      return cString(ret);
    },
    whole(ep, text) {
      put(text);
      ex.opa_heap_ptr_set(p.dataHeapPtr + text.length);
      const v = ex.opa_json_parse(p.dataHeapPtr, text.length);
      if (v === 0) return null;
      const ctx = ex.opa_eval_ctx_new();
      ex.opa_eval_ctx_set_input(ctx, v);
      ex.opa_eval_ctx_set_data(ctx, p.dataAddr);
      ex.opa_eval_ctx_set_entrypoint(ctx, ep);
      ex.eval(ctx);
      return cString(ex.opa_json_dump(ex.opa_eval_ctx_get_result(ctx)));
    },
    heapUsed: (ep, text) => opaEval(ep, text) - (p.dataHeapPtr + text.length),
  };
}

// Members read at several depths, read whole, type-tested only, by a dynamic key, not at all.
const TEST_POLICY = `package p

nested if input.a.b.c == "x"

typed if is_object(input.a.d)

whole := input.w

arr := input.arr

cnt := count(input.o)

dyn := input.m[input.k]

nested_val := input.a.b

escaped := input["é\\"q"].v

none := 1

all := input

# long members that differ only past their first eight bytes (or in length)
long := [input.long_member_name_0123456789, input.long_member_name_0123456788, input.long_member_name_01234567]

# more members than an object gets a hash index at
many := [x | some i in numbers.range(0, 19); x := input.many[sprintf("m%d", [i])]]

many_static := [input.many.m0, input.many.m1, input.many.m2, input.many.m3, input.many.m4, input.many.m5, input.many.m6, input.many.m7, input.many.m8, input.many.m9, input.many.m10, input.many.m11, input.many.m12, input.many.m13, input.many.m14, input.many.m15, input.many.m16, input.many.m17, input.many.m18, input.many.m19]

# members whose UTF-16 and UTF-8 orders differ
order := [input.u["\uffff"], input.u["😀"], input.u["Z"], input.u["é"]]
`;

async function load(modules: { file: string; source: string }[], entrypoints: string[], data?: unknown): Promise<Loaded> {
  const r = compilePolicy({ modules, entrypoints });
  expect(r.errors).toEqual([]);
  const p = (await loadPolicy(r.wasm!, undefined, hostBuiltins)) as unknown as Loaded;
  if (data !== undefined) p.setData(data);
  return p;
}

const KEYS = ["u", "\uffff", "😀", "Z", "é", "a", "b", "c", "d", "w", "arr", "o", "m", "k", "v", "x", "é\"q", "tool", "effect", "args", "approval", "decision", "principal", "roles", "tenant", "context", "amount", "", "long_member_name_0123456789", "long_member_name_0123456788", "long_member_name_01234567", "long_member_name_012345678"];

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, true, false, "x", "", "read", "approve", 0, -1, 1.5, 1e21, 123456789012345678),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 4 })), tie("value"), { maxKeys: 6 }),
  ),
})).value;

/** JSON text of v with whitespace, \\u escapes and repeated members as `r` draws them. */
function write(v: unknown, r: () => number): string {
  const ws = (): string => (r() < 0.15 ? [" ", "\n", "\t", "\r\n  "][Math.floor(r() * 4)]! : "");
  const str = (s: string): string => {
    let out = "";
    for (let i = 0; i < s.length; i++) out += r() < 0.1 ? `\\u${s.charCodeAt(i).toString(16).padStart(4, "0")}` : JSON.stringify(s[i]).slice(1, -1);
    return `"${out}"`;
  };
  const go = (x: unknown): string => {
    if (x === null || typeof x !== "object") return typeof x === "string" ? str(x) : JSON.stringify(x);
    if (Array.isArray(x)) return `[${ws()}${x.map((e) => ws() + go(e) + ws()).join(",")}${ws()}]`;
    const members = Object.entries(x as Record<string, unknown>).map(([k, e]) => `${ws()}${str(k)}${ws()}:${ws()}${go(e)}${ws()}`);
    // an earlier member repeated: the last of equal keys counts
    if (members.length > 0 && r() < 0.2) members.unshift(members[Math.floor(r() * members.length)]!);
    return `{${members.join(",")}}`;
  };
  return ws() + go(v) + ws();
}

const seeded = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const MUTATIONS = ['"', "\\", "{", "}", "[", "]", ",", ":", "0", "-", ".", "e", "x", "\u0001", " ", "n", "t", "u", "1"];

/** A mutation of text, never empty (opa_eval reads an empty text as no input at all). */
function mutate(text: Uint8Array, r: () => number): Uint8Array {
  if (text.length === 1) return new Uint8Array([...text, ...new TextEncoder().encode(MUTATIONS[Math.floor(r() * MUTATIONS.length)]!)]);
  const at = Math.floor(r() * (text.length + 1));
  const kind = r();
  const b = new TextEncoder().encode(MUTATIONS[Math.floor(r() * MUTATIONS.length)]!);
  if (kind < 0.4 && at < text.length) return new Uint8Array([...text.subarray(0, at), ...b, ...text.subarray(at + 1)]);
  if (kind < 0.7) return new Uint8Array([...text.subarray(0, at), ...b, ...text.subarray(at)]);
  return new Uint8Array([...text.subarray(0, at), ...text.subarray(at + 1)]);
}

describe("opa_eval's projected input parse", async () => {
  const test = await load([{ file: "p.rego", source: TEST_POLICY }], ["p/nested", "p/typed", "p/whole", "p/arr", "p/cnt", "p/dyn", "p/nested_val", "p/escaped", "p/none", "p/all", "p/order", "p/long", "p/many", "p/many_static"]);
  const authz = await load(
    [{ file: "policies/authz.rego", source: readFileSync(join(root, "policies", "authz.rego"), "utf8") }],
    ["toolgate/authz/decision"],
    JSON.parse(readFileSync(join(root, "policies", "data.json"), "utf8")),
  );
  const cases = [
    ...Object.values(test.entrypoints).map((ep) => ({ p: test, ep })),
    { p: authz, ep: 0 },
  ];
  const enc = new TextEncoder();

  it("agrees with the whole-document parse on random texts and their mutations", () => {
    const testRoutes = routes(test), authzRoutes = routes(authz);
    fc.assert(
      fc.property(jsonValue, fc.integer(), fc.nat(cases.length - 1), (v, seed, which) => {
        const { p, ep } = cases[which]!;
        const rt = p === test ? testRoutes : authzRoutes;
        const r = seeded(seed);
        const text = enc.encode(write(v, r));
        expect(rt.projected(ep, text)).toBe(rt.whole(ep, text));
        expect(rt.whole(ep, text)).not.toBeNull();
        const bad = mutate(text, r);
        expect(rt.projected(ep, bad)).toBe(rt.whole(ep, bad));
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees on authz inputs with extra members and their mutations", () => {
    const rt = routes(authz);
    const inputs = policyInputs(64, 9);
    fc.assert(
      fc.property(fc.nat(inputs.length - 1), jsonValue, fc.integer(), (i, extra, seed) => {
        const r = seeded(seed);
        const input = { ...inputs[i]!, context: extra, approval: inputs[i]!.approval === null ? null : { ...inputs[i]!.approval!, approver_roles: extra } };
        const text = enc.encode(write(input, r));
        const want = rt.whole(0, text);
        expect(want).toContain('"result"');
        expect(rt.projected(0, text)).toBe(want);
        const bad = mutate(text, r);
        expect(rt.projected(0, bad)).toBe(rt.whole(0, bad));
      }),
      { numRuns: 1500 },
    );
  });

  it("agrees on objects with more read members than a hash index starts at", () => {
    const rt = routes(test);
    const ep = test.entrypoints["p/many_static"]!;
    fc.assert(
      fc.property(fc.array(jsonValue, { minLength: 24, maxLength: 24 }), fc.integer(), fc.integer({ min: -1, max: 19 }), (vals, seed, drop) => {
        const many: Record<string, unknown> = {};
        vals.forEach((v, i) => {
          if (i !== drop) many[i < 20 ? `m${i}` : `extra${i}`] = v;
        });
        const text = enc.encode(write({ many, other: vals[0] }, seeded(seed)));
        const want = rt.whole(ep, text);
        if (drop < 0) expect(want).toContain('"result"');
        expect(rt.projected(ep, text)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects malformed text inside members the policy never reads", () => {
    const rt = routes(test);
    const ep = test.entrypoints["p/nested"]!;
    for (const junk of ['{"z": [1, 2', '{"z": "a\\qb"}', '{"z": "\\u12g4"}', '{"z": tru}', '{"z": 01}', '{"z": 1.}', '{"z": -}', '{"z": {"y" 1}}', '{"z": "a\u0001"}', '{"z": [1,]}', '{"a": {"q": nul}}', `{"z": ${"[".repeat(600)}${"]".repeat(600)}}`]) {
      expect(rt.whole(ep, enc.encode(junk)), junk).toBeNull();
      expect(rt.projected(ep, enc.encode(junk)), junk).toBeNull();
    }
    expect(rt.projected(ep, enc.encode('{"z": [1, {"y": "\\u00e9\\n"}], "a": {"b": {"c": "x"}}}'))).toBe('[{"result":true}]');
  });

  it("builds nothing for members the policy never reads", () => {
    const rt = routes(test);
    const big = enc.encode(JSON.stringify({ a: { b: { c: "x" } }, skipped: Array.from({ length: 2000 }, (_, i) => ({ k: i, s: `v${i}` })) }));
    const small = enc.encode(JSON.stringify({ a: { b: { c: "x" } } }));
    const ep = test.entrypoints["p/nested"]!;
    expect(rt.projected(ep, big)).toBe('[{"result":true}]');
    // the parse stack grows with the text; the values do not
    expect(rt.heapUsed(ep, big) - rt.heapUsed(ep, small)).toBeLessThan(2 * big.length);
    const whole = test.entrypoints["p/all"]!;
    expect(rt.heapUsed(whole, big) - rt.heapUsed(whole, small)).toBeGreaterThan(2000 * 64);
  });
});
