/**
 * The host-side value writer (fast-input.ts) builds exactly what the module's own
 * JSON parser builds: for random JSON values, the module dumps both the same, or
 * the writer declines (and the engine takes the JSON route).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { DECLINED, ValueReader, ValueWriter } from "../../src/policy/fast-input.js";

interface Ex {
  opa_malloc(n: number): number;
  opa_json_parse(a: number, n: number): number;
  opa_json_dump(v: number): number;
  opa_heap_ptr_get(): number;
  opa_heap_ptr_set(p: number): void;
  opa_null(): number;
  opa_boolean(b: number): number;
}

let ex: Ex;
let memory: WebAssembly.Memory;

beforeAll(async () => {
  const r = compilePolicy({ modules: [{ file: "t.rego", source: "package t\nx := input\n" }], entrypoints: ["t/x"], optimize: false });
  expect(r.errors).toEqual([]);
  memory = new WebAssembly.Memory({ initial: 5 });
  const fail = (): never => {
    throw new Error("unexpected import call");
  };
  const instance = await WebAssembly.instantiate(new WebAssembly.Module(r.wasm as Uint8Array<ArrayBuffer>), {
    env: { memory, opa_abort: fail, opa_println: fail, opa_builtin0: fail, opa_builtin1: fail, opa_builtin2: fail, opa_builtin3: fail, opa_builtin4: fail },
  });
  ex = instance.exports as unknown as Ex;
});

function cstring(addr: number): string {
  const u8 = new Uint8Array(memory.buffer);
  return new TextDecoder().decode(u8.subarray(addr, u8.indexOf(0, addr)));
}

/** A writer keeping object shapes' key cells in its own region and writing known shapes with code made for them. */
function shapeWriter(): ValueWriter {
  const w = new ValueWriter(memory, { nullCell: ex.opa_null(), trueCell: ex.opa_boolean(1), falseCell: ex.opa_boolean(0) });
  const region = ex.opa_malloc(4096);
  w.cacheKeys(region, region + 4096);
  w.compileShapes = true;
  return w;
}

/** [dump of the writer's cells or null when it declined, dump of the parsed JSON]. */
function both(value: unknown, writer?: ValueWriter): [string | null, string] {
  const base = ex.opa_heap_ptr_get();
  const w = writer ?? new ValueWriter(memory, { nullCell: ex.opa_null(), trueCell: ex.opa_boolean(1), falseCell: ex.opa_boolean(0) });
  const cells = w.write(value, (base + 7) & ~7);
  let direct: string | null = null;
  if (cells !== null) {
    ex.opa_heap_ptr_set(cells.end);
    direct = cstring(ex.opa_json_dump(cells.addr));
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const at = ex.opa_malloc(bytes.length);
  new Uint8Array(memory.buffer).set(bytes, at);
  const parsed = cstring(ex.opa_json_dump(ex.opa_json_parse(at, bytes.length)));
  ex.opa_heap_ptr_set(base);
  return [direct, parsed];
}

/** [the reader's value or DECLINED, JSON.parse of the module's dump] for the parsed JSON of `value`. */
function readBack(value: unknown): [unknown, unknown] {
  const base = ex.opa_heap_ptr_get();
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const at = ex.opa_malloc(bytes.length);
  new Uint8Array(memory.buffer).set(bytes, at);
  const v = ex.opa_json_parse(at, bytes.length);
  const read = new ValueReader(memory).read(v);
  const dumped: unknown = JSON.parse(cstring(ex.opa_json_dump(v)));
  ex.opa_heap_ptr_set(base);
  return [read, dumped];
}

describe("ValueReader", () => {
  it("reads what JSON.parse of the module's dump gives, or declines", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        const [got, want] = readBack(v);
        if (got !== DECLINED) expect(got).toStrictEqual(want);
      }),
      { numRuns: 300 },
    );
    // The reader must take most values itself: counted on a fixed sample, so the share
    // does not depend on the random run above.
    const sample = fc.sample(fc.jsonValue({ maxDepth: 4 }), { numRuns: 300, seed: 20261201 });
    const read = sample.filter((v) => readBack(v)[0] !== DECLINED).length;
    expect(read).toBeGreaterThan(100);
  });

  it("declines floats and big integers (their printing is the module's)", () => {
    expect(readBack([1.5])[0]).toBe(DECLINED);
    expect(readBack([2 ** 60])[0]).toBe(DECLINED);
    expect(readBack({ a: [1, "x", null, true] })).toEqual([{ a: [1, "x", null, true] }, { a: [1, "x", null, true] }]);
  });
});

describe("ValueWriter", () => {
  it.each([
    ["object keys sorted as the module sorts them", { b: 1, a: [true, false, null], "é": "x", "": {} }],
    ["integers across 32 bits", [0, -1, 4294967295, 4294967296, -4294967297, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]],
    ["non-ASCII strings", ["ü", "日本", "😀", ""]],
    ["nesting", { a: { b: { c: [[[]]] } } }],
  ])("%s", (_note, value) => {
    const [direct, parsed] = both(value);
    expect(direct).toBe(parsed);
  });

  it.each([
    ["floats", [1.5]],
    ["unsafe integers", [2 ** 60]],
    ["lone surrogates", ["\ud800"]],
    ["keys ordered differently in UTF-16 and UTF-8", { "\uffff": 1, "\ud83d\ude00": 2 }],
    ["undefined members", { a: undefined }],
    ["non-plain objects", [new Date(0)]],
  ])("declines %s", (_note, value) => {
    expect(both(value)[0]).toBeNull();
  });

  it("matches the module's parser on random JSON", () => {
    let written = 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        const [direct, parsed] = both(v);
        if (direct !== null) {
          written++;
          expect(direct).toBe(parsed);
        }
      }),
      { numRuns: 300 },
    );
    // Most random values have no floats: the comparison must have run on many of them.
    expect(written).toBeGreaterThan(100);
  });

  it("writes objects of a shape seen before (key cells kept, code made for the shape) as the module's parser does", () => {
    const w = shapeWriter();
    const member = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), fc.constant(1.5));
    const keys = fc.constantFrom("a", "b", "c", "__proto__", "constructor", "", "é");
    const obj = fc.dictionary(keys, member, { maxKeys: 4 }).map((d) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(d)) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      return o;
    });
    let written = 0;
    fc.assert(
      fc.property(fc.array(fc.oneof(obj, fc.array(obj, { maxLength: 3 }), fc.record({ x: obj, y: obj })), { minLength: 1, maxLength: 10 }), (values) => {
        for (const v of values) {
          const [direct, parsed] = both(v, w);
          const plain = both(v)[0];
          expect(direct).toBe(plain);
          if (direct !== null) {
            written++;
            expect(direct).toBe(parsed);
          }
        }
      }),
      { numRuns: 200, seed: 3 },
    );
    expect(written).toBeGreaterThan(200);
  });
});
