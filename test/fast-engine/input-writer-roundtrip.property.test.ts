/**
 * The input the fast engine writes into the module's memory decodes to the input:
 * for random JSON with many members per object (hundreds to thousands, as in a large
 * tool call) and deep nesting, the cells the writer builds, with its string and key
 * caches warm from earlier inputs, read back (ValueReader) as the value itself and
 * dump as the module's own parse of the same JSON; and the engine's result of a policy
 * returning `input` is the input.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { DECLINED, ValueReader, ValueWriter } from "../../src/policy/fast-input.js";
import { SDK_EXPORTS, TOOLGATE_HOST_EXPORTS } from "../../src/policy/abi.js";

/** The module's exports this test calls, by the ABI's names. */
interface Ex {
  malloc(n: number): number;
  jsonParse(a: number, n: number): number;
  jsonDump(v: number): number;
  heapPtrGet(): number;
  heapPtrSet(p: number): void;
}

const SOURCE = "package t\nx := input\n";
let wasm: Uint8Array;
let ex: Ex;
let memory: WebAssembly.Memory;
let writer: ValueWriter;

beforeAll(async () => {
  const r = compilePolicy({ modules: [{ file: "t.rego", source: SOURCE }], entrypoints: ["t/x"] });
  expect(r.errors).toEqual([]);
  wasm = r.wasm!;
  memory = new WebAssembly.Memory({ initial: 5 });
  const fail = (): never => {
    throw new Error("unexpected import call");
  };
  const instance = await WebAssembly.instantiate(new WebAssembly.Module(wasm as Uint8Array<ArrayBuffer>), {
    env: { memory, opa_abort: fail, opa_println: fail, opa_builtin0: fail, opa_builtin1: fail, opa_builtin2: fail, opa_builtin3: fail, opa_builtin4: fail },
  });
  const exported = instance.exports as Record<string, (...args: number[]) => number>;
  const fn = (name: string): ((...args: number[]) => number) => exported[name]!;
  ex = {
    malloc: fn(SDK_EXPORTS.malloc), jsonParse: fn(SDK_EXPORTS.jsonParse), jsonDump: fn(SDK_EXPORTS.jsonDump),
    heapPtrGet: fn(SDK_EXPORTS.heapPtrGet), heapPtrSet: fn(SDK_EXPORTS.heapPtrSet),
  };
  const nullCell = fn(TOOLGATE_HOST_EXPORTS.nullCell)();
  const booleanCell = fn(TOOLGATE_HOST_EXPORTS.booleanCell);
  // As the engine sets it up: key cells of shapes and short strings kept in regions reused across inputs.
  writer = new ValueWriter(memory, { nullCell, trueCell: booleanCell(1), falseCell: booleanCell(0) });
  const keys = ex.malloc(16 * 1024);
  writer.cacheKeys(keys, keys + 16 * 1024);
  const strings = ex.malloc(64 * 1024);
  writer.cacheStrings(strings, strings + 64 * 1024);
  writer.compileShapes = true;
});

function cstring(addr: number): string {
  const u8 = new Uint8Array(memory.buffer);
  return new TextDecoder().decode(u8.subarray(addr, u8.indexOf(0, addr)));
}

/** Values the writer takes itself (no floats, no lone surrogates, keys below U+D800). */
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("read_allowed", "é", "日本", "😀", "x".repeat(70)), fc.string({ unit: "grapheme", maxLength: 6 }));
const key = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("", "a", "é", "__proto__", "constructor", "toString")).filter((k) => !/[\uD800-\uFFFF]/.test(k));
const leaf = fc.oneof(text, fc.maxSafeInteger(), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null));

/** An object with own members as given (a `__proto__` key is a member, as JSON.parse makes it). */
function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

/** Objects of many members: generated field names plus random ones. */
const wide = fc.tuple(fc.integer({ min: 100, max: 3000 }), fc.array(fc.tuple(key, leaf), { maxLength: 20 }), leaf).map(([n, extra, v]) => {
  const entries: [string, unknown][] = [];
  for (let i = 0; i < n; i++) entries.push([`field_${i}`, i % 3 === 0 ? `value ${i} xy` : i % 3 === 1 ? i : v]);
  return objectOf([...entries, ...extra]);
});

/** A chain of objects and arrays `depth` levels deep with a value at the bottom. */
const small = fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.array(fc.tuple(key, leaf), { maxLength: 3 }).map(objectOf));
const deep = fc.tuple(fc.array(fc.oneof(key, fc.constant(null)), { minLength: 1, maxLength: 60 }), small, leaf).map(([path, bottom, side]) => {
  let v: unknown = bottom;
  for (const k of path) v = k === null ? [v, side] : objectOf([[k, v], ["side", side]]);
  return v;
});

const input = fc.oneof(wide, deep, fc.record({ tool: text, args: fc.oneof(wide, deep) }), fc.array(fc.oneof(wide, deep), { maxLength: 3 }));

/** What the module holds when it parses the value's JSON, as the value the host sees. */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** Deep equality by own members (toStrictEqual reads a member named `constructor` as the type). */
function expectSameJson(got: unknown, want: unknown): void {
  if (!isDeepStrictEqual(got, want)) expect(JSON.stringify(got)).toBe(JSON.stringify(want));
  expect(isDeepStrictEqual(got, want)).toBe(true);
}

/** [the cells read back, their dump, the dump of the module's own parse]; null when the writer declined. */
function roundTrip(v: unknown): [unknown, string, string] | null {
  const base = ex.heapPtrGet();
  const cells = writer.write(v, (base + 7) & ~7);
  if (cells === null) return null;
  ex.heapPtrSet(cells.end);
  const read = new ValueReader(memory).read(cells.addr);
  const direct = cstring(ex.jsonDump(cells.addr));
  const bytes = new TextEncoder().encode(JSON.stringify(v));
  const at = ex.malloc(bytes.length);
  new Uint8Array(memory.buffer).set(bytes, at);
  const parsed = cstring(ex.jsonDump(ex.jsonParse(at, bytes.length)));
  ex.heapPtrSet(base);
  return [read, direct, parsed];
}

describe("fast engine input writing", () => {
  it("written input decodes to the same value for random JSON with many fields and deep nesting", () => {
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 4 }), (values) => {
        // Several inputs in a row: the caches carry strings and shapes from one to the next.
        for (const v of values) {
          const got = roundTrip(v);
          expect(got).not.toBeNull();
          const [read, direct, parsed] = got!;
          // The reader leaves `__proto__` members to the module's dump, as the engine does.
          expectSameJson(read === DECLINED ? JSON.parse(direct) : read, asJson(v));
          expect(direct).toBe(parsed);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("the engine's evaluation of `input` gives back the input with many fields and deep nesting", async () => {
    const policy = await FastPolicy.load(wasm);
    policy.setData({});
    expect(policy.writesValuesDirectly).toBe(true);
    const ep = policy.entrypoints["t/x"]!;
    await fc.assert(
      fc.asyncProperty(fc.array(input, { minLength: 1, maxLength: 3 }), async (values) => {
        for (const v of values) expectSameJson(policy.evaluate(v, ep), [{ result: asJson(v) }]);
      }),
      { numRuns: 30 },
    );
  });
});
