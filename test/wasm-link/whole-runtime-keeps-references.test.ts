/**
 * With the whole runtime kept (`keepWholeRuntime(true)`, no dead-code elimination)
 * the binary linker keeps every runtime function, global, export and data segment,
 * and renumbers every call in the runtime's code to the function it called before:
 * each linked runtime body equals the original byte for byte once call targets are
 * mapped (runtime function k -> k plus the import count; env.* imports -> the same
 * import; toolgate.* imports -> the generated function that replaces them).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { keepWholeRuntime } from "../../codegen/wasm/link/index.js";
import { runtimeBytes } from "../../codegen/wasm/link/runtime-bytes.js";
import { runtimeLibrary } from "../../codegen/wasm/link/runtime-library.js";
import type { RuntimeBody, RuntimeLibrary } from "../../codegen/wasm/link/runtime-library.js";
import { withoutCallTargets } from "./body-bytes.js";

const root = join(import.meta.dirname, "..", "..");
const policy = { file: "policies/authz.rego", source: readFileSync(join(root, "policies", "authz.rego"), "utf8") };

function linkedShippedPolicy(): RuntimeLibrary {
  keepWholeRuntime(true);
  const r = compilePolicy({ modules: [policy], entrypoints: ["toolgate/authz/decision"] });
  keepWholeRuntime(false);
  expect(r.errors).toEqual([]);
  // A fresh copy: the decoder caches by array.
  return runtimeLibrary(new Uint8Array(r.wasm!));
}


const functionImports = (lib: RuntimeLibrary): string[] => lib.imports.filter((i) => i.kind === "function").map((i) => `${i.module}.${i.base}`);

describe("the binary linker keeping the whole runtime", () => {
  const rt = runtimeLibrary(runtimeBytes());
  const out = linkedShippedPolicy();
  const outImports = functionImports(out);
  const exportIndex = (lib: RuntimeLibrary, name: string): number => lib.exports.find((e) => e.name === name)!.index;

  // Where each runtime function index must land in the linked module.
  const expected = (old: number): number => {
    if (old >= rt.importedFunctions) return out.importedFunctions + (old - rt.importedFunctions);
    const name = functionImports(rt)[old]!;
    if (!name.startsWith("toolgate.")) return outImports.indexOf(name);
    return -1; // replaced: checked below through the generated code
  };

  it("drops exactly the toolgate.* imports and keeps the others", () => {
    expect(outImports.filter((n) => n.startsWith("toolgate."))).toEqual([]);
    for (const n of functionImports(rt)) if (!n.startsWith("toolgate.")) expect(outImports).toContain(n);
  });

  it("keeps every runtime function body, with every call renumbered to its old callee", () => {
    expect(out.bodies.length).toBeGreaterThan(rt.bodies.length);
    const replaced = new Map<number, number>(); // old toolgate import -> new index, consistent across call sites
    rt.bodies.forEach((b, i) => {
      const linked = out.bodies[i]!;
      expect(out.functions[i]).toBe(rt.functions[i]);
      expect(withoutCallTargets(linked)).toEqual(withoutCallTargets(b));
      expect(linked.calls.length).toBe(b.calls.length);
      b.calls.forEach((c, j) => {
        const got = linked.calls[j]!.callee;
        const want = expected(c.callee);
        if (want >= 0) {
          expect(got).toBe(want);
        } else {
          if (!replaced.has(c.callee)) replaced.set(c.callee, got);
          expect(got).toBe(replaced.get(c.callee));
          expect(got).toBeGreaterThanOrEqual(out.importedFunctions + rt.functions.length); // a generated function
        }
      });
    });
    expect(replaced.size).toBe(functionImports(rt).filter((n) => n.startsWith("toolgate.")).length);
  });

  it("keeps every runtime export under its name, pointing at the same function or global", () => {
    for (const e of rt.exports) {
      const got = out.exports.find((x) => x.name === e.name);
      expect(got, e.name).toBeDefined();
      expect(got!.kind).toBe(e.kind);
      expect(got!.index).toBe(e.kind === 0 ? expected(e.index) : e.index);
    }
    expect(exportIndex(out, "toolgate_decision")).toBeGreaterThanOrEqual(out.importedFunctions + rt.functions.length);
  });

  it("keeps every runtime global and data segment at its index, appending the generated ones", () => {
    expect(out.globals.length).toBeGreaterThanOrEqual(rt.globals.length);
    // The emitter gives the input-paths table's address to this global; every other keeps its init.
    const pathsGlobal = exportIndex(rt, "tg_input_paths");
    rt.globals.forEach((g, i) => {
      expect(out.globals[i]!.valtype).toBe(g.valtype);
      expect(out.globals[i]!.mutable).toBe(g.mutable);
      if (i === pathsGlobal) expect([...out.globals[i]!.init]).not.toEqual([...g.init]);
      else expect([...out.globals[i]!.init]).toEqual([...g.init]);
    });
    // static values, then the input-paths table
    expect(out.data.length).toBe(rt.data.length + 2);
    rt.data.forEach((d, i) => expect([...out.data[i]!]).toEqual([...d]));
    expect(out.dataEnd).toBeGreaterThan(rt.dataEnd);
    expect(out.hasDataCount).toBe(rt.hasDataCount);
  });
});
