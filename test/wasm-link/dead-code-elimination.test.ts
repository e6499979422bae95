/**
 * Dead-code elimination at link time: a linked module keeps the runtime exports of
 * `KEPT_RUNTIME_EXPORTS` and exactly the runtime functions they, the generated code
 * and the start function reach, each byte for byte with its calls renumbered to the
 * new index of the function it called before, in the library's order; and the
 * runtime data segments something kept addresses, at their addresses.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import {
  exportedName, finishHeapBase, KEPT_RUNTIME_EXPORT_NAMES, keepWholeRuntime, linkModule, readRuntime, replaceImport, validationError,
} from "../../codegen/wasm/link/index.js";
import { ByteReader } from "../../codegen/wasm/link/bytes.js";
import { runtimeBytes } from "../../codegen/wasm/link/runtime-bytes.js";
import { runtimeLibrary } from "../../codegen/wasm/link/runtime-library.js";
import type { RuntimeBody } from "../../codegen/wasm/link/runtime-library.js";
import { i32, none } from "../../codegen/wasm/link/types.js";
import { withoutCallTargets } from "./body-bytes.js";

const root = join(import.meta.dirname, "..", "..");
const policy = { file: "policies/authz.rego", source: readFileSync(join(root, "policies", "authz.rego"), "utf8") };
const FUNCTION = 0;

function compileShipped(whole: boolean): Uint8Array {
  keepWholeRuntime(whole);
  try {
    const r = compilePolicy({ modules: [policy], entrypoints: ["toolgate/authz/decision"] });
    expect(r.errors).toEqual([]);
    return r.wasm!;
  } finally {
    keepWholeRuntime(false);
  }
}


describe("dead-code elimination at link time", () => {
  const rt = runtimeLibrary(runtimeBytes());
  const wasm = compileShipped(false);
  const whole = compileShipped(true);
  // Fresh copies: the decoder caches by array.
  const out = runtimeLibrary(new Uint8Array(wasm));
  const generatedCount = runtimeLibrary(new Uint8Array(whole)).functions.length - rt.functions.length;
  const keptRuntimeCount = out.functions.length - generatedCount;
  const runtimeExportNames = new Set(rt.exports.map((e) => e.name));

  it("makes the shipped policy's module smaller than the whole runtime and still valid", () => {
    expect(validationError(wasm)).toBeNull();
    expect(keptRuntimeCount).toBeLessThan(rt.functions.length);
    expect(wasm.byteLength).toBeLessThan(whole.byteLength);
  });

  it("keeps exactly the listed runtime exports, and every listed name is one the runtime has", () => {
    for (const name of KEPT_RUNTIME_EXPORT_NAMES) expect(runtimeExportNames, name).toContain(name);
    const keptRuntimeExports = out.exports.map((e) => e.name).filter((n) => runtimeExportNames.has(n)).sort();
    expect(keptRuntimeExports).toEqual([...KEPT_RUNTIME_EXPORT_NAMES].sort());
    expect(out.exports.some((e) => e.name === "toolgate_decision")).toBe(true);
  });

  it("keeps each runtime function the kept exports reach, byte for byte, in order, with calls renumbered", () => {
    const oldToNew = new Map<number, number>();
    const pending: [number, number][] = [];
    const pair = (oldIdx: number, newIdx: number): void => {
      if (oldIdx < rt.importedFunctions) return; // imports: checked below
      const seen = oldToNew.get(oldIdx);
      if (seen !== undefined) {
        expect(newIdx, `runtime function ${oldIdx}`).toBe(seen);
        return;
      }
      oldToNew.set(oldIdx, newIdx);
      pending.push([oldIdx, newIdx]);
    };
    for (const e of rt.exports) {
      if (e.kind !== FUNCTION || !KEPT_RUNTIME_EXPORT_NAMES.has(e.name)) continue;
      pair(e.index, out.exports.find((x) => x.name === e.name)!.index);
    }
    const outImports = out.imports.filter((i) => i.kind === "function").map((i) => `${i.module}.${i.base}`);
    const rtImports = rt.imports.filter((i) => i.kind === "function").map((i) => `${i.module}.${i.base}`);
    for (let p = pending.pop(); p !== undefined; p = pending.pop()) {
      const [oldIdx, newIdx] = p;
      const k = newIdx - out.importedFunctions;
      expect(k).toBeGreaterThanOrEqual(0);
      expect(k).toBeLessThan(keptRuntimeCount);
      const before = rt.bodies[oldIdx - rt.importedFunctions]!;
      const after = out.bodies[k]!;
      expect(out.functions[k]).toBe(rt.functions[oldIdx - rt.importedFunctions]);
      expect(withoutCallTargets(after)).toEqual(withoutCallTargets(before));
      expect(after.calls.length).toBe(before.calls.length);
      before.calls.forEach((c, j) => {
        const got = after.calls[j]!.callee;
        if (c.callee >= rt.importedFunctions) pair(c.callee, got);
        else if (!rtImports[c.callee]!.startsWith("toolgate.")) expect(outImports[got]).toBe(rtImports[c.callee]);
        else expect(got).toBeGreaterThanOrEqual(out.importedFunctions + keptRuntimeCount); // the replacing generated function
      });
    }
    expect(oldToNew.size).toBeGreaterThan(0);
    const byOld = [...oldToNew.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
    expect(byOld).toEqual([...byOld].sort((a, b) => a - b)); // the library's order
  });

  it("keeps no runtime function that neither an export nor the generated code reaches", () => {
    const reached = new Set<number>();
    const pending: number[] = [];
    const reach = (idx: number): void => {
      if (idx >= out.importedFunctions && !reached.has(idx)) {
        reached.add(idx);
        pending.push(idx);
      }
    };
    for (const e of out.exports) if (e.kind === FUNCTION) reach(e.index);
    if (out.start !== null) reach(out.start);
    // Generated functions are kept whether called or not; their calls are roots.
    for (let g = out.importedFunctions + keptRuntimeCount; g < out.importedFunctions + out.functions.length; g++) reach(g);
    for (let f = pending.pop(); f !== undefined; f = pending.pop()) for (const c of out.bodies[f - out.importedFunctions]!.calls) reach(c.callee);
    for (let f = out.importedFunctions; f < out.importedFunctions + keptRuntimeCount; f++) expect(reached.has(f), `function ${f}`).toBe(true);
  });

  it("drops the runtime data segments nothing left in the module addresses, and keeps the others byte for byte", () => {
    const kept = out.dataSegments.filter((d) => d.offset !== null && d.offset < rt.dataEnd);
    const keptAt = new Set(kept.map((d) => d.offset));
    const dropped = rt.dataSegments.filter((d) => !keptAt.has(d.offset));
    expect(dropped.length).toBeGreaterThan(0);
    expect(kept.length + dropped.length).toBe(rt.dataSegments.length);
    let j = 0;
    rt.dataSegments.forEach((d) => {
      if (!keptAt.has(d.offset)) return;
      expect([...kept[j]!.payload], `segment at ${d.offset}`).toEqual([...d.payload]);
      j++;
    });
    // Every address the linked module's code, globals or data hold, read from its bytes.
    const addresses: number[] = out.bodies.flatMap((b) => [...b.constants]);
    for (const g of out.globals) if (g.init[0] === 0x41) addresses.push(new ByteReader(g.init, 1).s32() >>> 0);
    for (const d of out.dataSegments) {
      const view = new DataView(d.payload.buffer, d.payload.byteOffset, d.payload.byteLength);
      for (let i = (4 - (d.offset! % 4)) % 4; i + 4 <= d.payload.length; i += 4) addresses.push(view.getUint32(i, true));
    }
    for (const d of dropped) {
      const end = d.offset! + d.payload.length;
      const inside = addresses.find((a) => a >= d.offset! && a <= end);
      expect(inside, `dropped segment ${d.offset}..${end} is addressed`).toBeUndefined();
    }
    expect(out.dataEnd).toBeGreaterThan(rt.dataEnd); // the layout does not move: generated data still after the runtime's
  });

  it("keeps a runtime function only generated code calls, without exporting it, and drops one nothing calls", () => {
    const m = readRuntime();
    for (const name of ["eval", "entrypoints", "builtins"] as const) replaceImport(m, name, [], m.i32.const(0));
    const call = (name: string, args: number[]): number => m.call(exportedName(m, name), args, i32);
    m.addFunction("tag", none, i32, [], call("opa_value_type", [call("opa_boolean", [m.i32.const(1)])]));
    m.addFunctionExport("tag", "tag");
    finishHeapBase(m);
    const linked = linkModule(m);
    expect(validationError(linked.bytes)).toBeNull();
    const lib = runtimeLibrary(runtimeBytes());
    const defined = (name: string): number => lib.exports.find((e) => e.name === name)!.index - lib.importedFunctions;
    expect(KEPT_RUNTIME_EXPORT_NAMES.has("opa_value_type")).toBe(false);
    expect(linked.keptRuntime).toContain(defined("opa_value_type"));
    expect(linked.keptRuntime).not.toContain(defined("tg_graph_reachable_paths"));
    const memory = new WebAssembly.Memory({ initial: 5 });
    const env = { memory, opa_abort: () => { throw new Error("abort"); } };
    const instance = new WebAssembly.Instance(new WebAssembly.Module(linked.bytes as Uint8Array<ArrayBuffer>), { env });
    expect(instance.exports["opa_value_type"]).toBeUndefined();
    expect((instance.exports["tag"] as () => number)()).toBe(2); // OPA_BOOLEAN
  });

  it("keeps every runtime function with wholeRuntime", () => {
    const m = readRuntime();
    for (const name of ["eval", "entrypoints", "builtins"] as const) replaceImport(m, name, [], m.i32.const(0));
    finishHeapBase(m);
    const linked = linkModule(m, { wholeRuntime: true });
    expect(linked.keptRuntime.length).toBe(rt.functions.length);
    expect(runtimeLibrary(new Uint8Array(linked.bytes)).exports.length).toBe(rt.exports.length);
  });
});
