// Objects and sets of the runtime library against a reference model: inserts,
// lookups, removal, iteration order, equality and order between collections, for
// sizes on both sides of the hash-index threshold and with reads interleaved with
// out-of-order appends (which defer sorting).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadRuntime } from "./harness.js";

const rt = loadRuntime();
const utf8 = new TextEncoder();

// Values: integers (also written as floats, 3 == 3.0), strings with multi-byte
// characters (byte order), and short arrays of those.
type Val = number | string | Val[];
const scalar: fc.Arbitrary<Val> = fc.oneof(
  fc.integer({ min: -60, max: 60 }),
  fc.array(fc.constantFrom("a", "b", "z", "é", "€", "😀"), { maxLength: 3 }).map((cs) => cs.join("")),
);
const value: fc.Arbitrary<Val> = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }) });
// Integers written as floats half of the time.
const asJson = (v: Val, flip: boolean): string =>
  Array.isArray(v) ? `[${v.map((x) => asJson(x, flip)).join(",")}]` : typeof v === "number" && flip ? `${v}.0` : JSON.stringify(v);

function cmp(a: Val, b: Val): number {
  const rank = (v: Val): number => (typeof v === "number" ? 0 : typeof v === "string" ? 1 : 2);
  if (rank(a) !== rank(b)) return Math.sign(rank(a) - rank(b));
  if (typeof a === "number") return Math.sign(a - (b as number));
  if (typeof a === "string") return Math.sign(Buffer.compare(utf8.encode(a), utf8.encode(b as string)));
  const x = a, y = b as Val[];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = cmp(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  return Math.sign(x.length - y.length);
}
const canon = (v: Val): string => JSON.stringify(v);
const sortedUnique = (xs: readonly Val[]): Val[] => {
  const m = new Map<string, Val>();
  for (const x of xs) m.set(canon(x), x);
  return [...m.values()].sort(cmp);
};

/** Runs f with the heap reset afterwards, so the suite's memory stays flat. */
function scoped<T>(f: () => T): T {
  const mark = rt.call("opa_heap_ptr_get");
  try {
    return f();
  } finally {
    rt.call("opa_heap_ptr_set", mark);
  }
}

const parse = (v: Val, flip = false): number => rt.parse(asJson(v, flip));
const keysOf = (c: number): string[] => {
  const n = rt.call("opa_value_length", c);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rt.dump(rt.call("tg_key_at", c, i))!);
  return out;
};
const iterKeys = (c: number): string[] => {
  const out: string[] = [];
  for (let k = rt.call("opa_value_iter", c, 0); k !== 0; k = rt.call("opa_value_iter", c, k)) out.push(rt.dump(k)!);
  return out;
};
const dumpAll = (xs: readonly Val[]): string[] => xs.map((x) => rt.dump(parse(x))!);

// An operation sequence: adds, with reads by position or a dump at random moments.
const step = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant("add" as const), v: value, flip: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("read" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("dump" as const) }) },
);
const steps = fc.array(step, { maxLength: 300, size: "max" });

describe("sets against a reference model", () => {
  it("membership, length, order (by position, by iteration, in dumps) at every read", () => {
    fc.assert(
      fc.property(steps, fc.array(value, { maxLength: 20 }), (ops, probes) =>
        scoped(() => {
          const set = rt.call("opa_set");
          const model: Val[] = [];
          for (const s of ops) {
            if (s.op === "add") {
              rt.call("opa_set_add", set, parse(s.v, s.flip));
              model.push(s.v);
            } else if (s.op === "read") {
              expect(keysOf(set)).toEqual(dumpAll(sortedUnique(model)));
            } else {
              expect(rt.dump(set)).toBe(`[${dumpAll(sortedUnique(model)).join(",")}]`);
            }
          }
          const want = sortedUnique(model);
          expect(rt.call("opa_value_length", set)).toBe(want.length);
          for (const p of [...probes, ...model.slice(0, 20)]) {
            const present = want.some((w) => cmp(w, p) === 0);
            expect(rt.call("opa_value_get", set, parse(p, true)) !== 0).toBe(present);
          }
          expect(iterKeys(set)).toEqual(dumpAll(want));
          expect(keysOf(set)).toEqual(dumpAll(want));
        }),
      ),
      { numRuns: 60 },
    );
  });

  it("equality and order do not depend on insertion order", () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 120, size: "max" }), fc.array(value, { maxLength: 120, size: "max" }), fc.integer(), (xs, ys, seed) =>
        scoped(() => {
          const build = (vals: readonly Val[]): number => {
            const s = rt.call("opa_set");
            for (const v of vals) rt.call("opa_set_add", s, parse(v));
            return s;
          };
          const shuffled = [...xs].sort((a, b) => ((canon(a).length * 31 + seed) % 7) - ((canon(b).length * 17 + seed) % 5));
          const a = build(xs), a2 = build(shuffled.reverse()), b = build(ys);
          expect(rt.call("tg_value_equal", a, a2)).toBe(1);
          expect(rt.call("opa_value_compare", a, a2)).toBe(0);
          // sets compare as their sorted element lists
          const ref = cmp(sortedUnique(xs), sortedUnique(ys));
          expect(Math.sign(rt.call("opa_value_compare", a, b))).toBe(ref);
          expect(rt.call("tg_value_equal", a, b)).toBe(ref === 0 ? 1 : 0);
          // a set used as an element: found by an equal set built in another order
          const outer = rt.call("opa_set");
          for (let i = 0; i < 20; i++) rt.call("opa_set_add", outer, parse([i]));
          rt.call("opa_set_add", outer, a);
          expect(rt.call("opa_value_get", outer, a2)).not.toBe(0);
        }),
      ),
      { numRuns: 60 },
    );
  });
});

describe("objects against a reference model", () => {
  const objStep = fc.oneof(
    { weight: 8, arbitrary: fc.record({ op: fc.constant("put" as const), k: value, v: fc.integer({ min: 0, max: 9 }), flip: fc.boolean() }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("remove" as const), k: value }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("read" as const) }) },
  );

  it("insert (replacing), get, remove along a path, keys and values in key order", () => {
    fc.assert(
      fc.property(fc.array(objStep, { maxLength: 300, size: "max" }), (ops) =>
        scoped(() => {
          let obj = rt.call("opa_object");
          const model = new Map<string, { k: Val; v: number }>();
          const expectSame = (): void => {
            const want = [...model.values()].sort((a, b) => cmp(a.k, b.k));
            expect(keysOf(obj)).toEqual(dumpAll(want.map((e) => e.k)));
            const vals: string[] = [];
            for (let i = 0; i < want.length; i++) vals.push(rt.dump(rt.call("tg_value_at", obj, i))!);
            expect(vals).toEqual(want.map((e) => String(e.v)));
          };
          for (const s of ops) {
            if (s.op === "put") {
              rt.call("opa_object_insert", obj, parse(s.k, s.flip), parse(s.v));
              model.set(canon(s.k), { k: s.k, v: s.v });
            } else if (s.op === "remove") {
              obj = rt.call("tg_value_remove_path", obj, rt.parse(`[${asJson(s.k, false)}]`));
              model.delete(canon(s.k));
            } else expectSame();
          }
          expectSame();
          for (const { k, v } of model.values()) expect(rt.dump(rt.call("opa_value_get", obj, parse(k, true)))).toBe(String(v));
          expect(rt.call("opa_value_get", obj, parse("not a key"))).toBe(0);
        }),
      ),
      { numRuns: 60 },
    );
  });

  it("insert_once conflicts only on a different value; merge keeps both sides", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 3 })), { maxLength: 200, size: "max" }), (pairs) =>
        scoped(() => {
          const obj = rt.call("opa_object");
          const model = new Map<number, number>();
          for (const [k, v] of pairs) {
            const r = rt.call("tg_object_insert_once", obj, parse(String(k)), parse(v));
            const had = model.get(k);
            expect(r).toBe(had === undefined || had === v ? 1 : 0);
            if (had === undefined) model.set(k, v);
          }
          const other = rt.call("opa_object");
          for (let i = 0; i < 40; i++) rt.call("opa_object_insert", other, parse(`x${i}`), parse(i));
          const merged = rt.call("opa_value_merge", obj, other);
          expect(rt.call("opa_value_length", merged)).toBe(model.size + 40);
          for (const [k, v] of model) expect(rt.dump(rt.call("opa_value_get", merged, parse(String(k))))).toBe(String(v));
          expect(rt.dump(rt.call("opa_value_get", merged, parse("x39")))).toBe("39");
        }),
      ),
      { numRuns: 60 },
    );
  });
});

describe("values that outlive a heap reset", () => {
  it("never get an index allocated after the saved heap pointer (it would dangle after the reset)", () => {
    scoped(() => {
      const a = rt.call("opa_set");
      const b = rt.call("opa_set");
      for (let i = 0; i < 64; i++) {
        rt.call("opa_set_add", a, parse(i));
        rt.call("opa_set_add", b, parse(i * 2));
      }
      // built by a builtin with plain appends, so not indexed yet; kept below the saved
      // pointer as the SDK keeps its data document
      const kept = rt.call("opa_set_intersection", a, b);
      expect(rt.call("opa_value_length", kept)).toBe(32);
      const saved = rt.call("opa_heap_ptr_get");
      for (let round = 0; round < 3; round++) {
        // what the previous evaluation left above the saved pointer is overwritten
        rt.call("opa_heap_ptr_set", saved);
        const junk = rt.call("opa_malloc", 1 << 16);
        new Uint8Array(rt.memory.buffer).fill(0x41, junk, junk + (1 << 16));
        rt.call("opa_heap_ptr_set", saved);
        for (let i = 0; i < 64; i++) expect(rt.call("opa_value_get", kept, parse(i)) !== 0).toBe(i % 2 === 0);
      }
    });
  });
});

describe("large JSON documents", () => {
  it("share one cell per repeated object key and read back unchanged", () => {
    scoped(() => {
      const doc = Array.from({ length: 400 }, (_, i) => ({ name: `n${i}`, kind: i % 3, "a\\u0062": i, ["k".repeat(40)]: i }));
      const json = JSON.stringify(doc);
      expect(json.length).toBeGreaterThan(8192);
      const v = rt.parse(json);
      expect(rt.dump(v)).toBe(JSON.stringify(JSON.parse(json).map((o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort()))));
      const u32 = new Uint32Array(rt.memory.buffer);
      const keyCells = (o: number): number[] => {
        const data = u32[(o >> 2) + 3]!;
        return Array.from({ length: u32[(o >> 2) + 1]! }, (_, i) => u32[(data >> 2) + 2 * i]!);
      };
      const a = keyCells(rt.call("tg_value_at", v, 0)), b = keyCells(rt.call("tg_value_at", v, 399));
      // "kind" and "name" are shared; the escaped and the long key are not
      expect(a.filter((k, i) => k === b[i]).length).toBe(2);
      expect(rt.dump(rt.call("opa_value_get", rt.call("tg_value_at", v, 7), parse("name")))).toBe('"n7"');
    });
  });
});
