/**
 * `useRuntimeBytes` (from runtime-link.ts, as the large-policy bench calls it) redirects
 * the library every later compilation links against, and `undefined` restores
 * runtime.wasm: both linkers share one setting.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { ByteWriter } from "../../codegen/wasm/link/bytes.js";
import { runtimeBytes } from "../../codegen/wasm/link/runtime-bytes.js";
import { useRuntimeBytes } from "../../codegen/wasm/runtime-link.js";

const compile = (): Uint8Array => compilePolicy({ modules: [{ file: "p.rego", source: "package p\n\nx := 1\n" }], entrypoints: ["p/x"] }).wasm!;
const customSections = (wasm: Uint8Array): string[] => WebAssembly.Module.customSections(new WebAssembly.Module(wasm as Uint8Array<ArrayBuffer>), "library-marker").map((b) => new TextDecoder().decode(b));

afterEach(() => useRuntimeBytes(undefined));

describe("useRuntimeBytes", () => {
  it("links later compilations against the given library, and undefined goes back to runtime.wasm", () => {
    const original = runtimeBytes();
    const marker = new ByteWriter().name("library-marker").bytes(new TextEncoder().encode("other build"));
    const other = new ByteWriter().bytes(original).byte(0).sized(marker).finish();
    useRuntimeBytes(other);
    expect(customSections(compile())).toEqual(["other build"]);
    useRuntimeBytes(undefined);
    expect(customSections(compile())).toEqual([]);
  });
});

describe("a runtime library without the input-paths table", () => {
  // A library built before the projected input parse (a benchmark baseline) exports no
  // `tg_input_paths`: the emitter leaves the table out and the module parses the whole input.
  const source = "package p\n\nallow if input.user.role == \"admin\"\n\nname := input.user.name\n";
  const build = (): Uint8Array =>
    compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints: ["p/allow", "p/name"] }).wasm!;
  const withoutTableExport = (bytes: Uint8Array): Uint8Array => {
    const name = new TextEncoder().encode("tg_input_paths");
    const out = new Uint8Array(bytes);
    let renamed = 0;
    for (let i = 0; i + name.length <= out.length; i++) {
      if (out[i - 1] === name.length && name.every((b, k) => out[i + k] === b)) {
        out[i + name.length - 1] = "X".charCodeAt(0); // same length: the section sizes stay
        renamed++;
      }
    }
    expect(renamed).toBe(1);
    return out;
  };

  it("links, and decides as the module built against runtime.wasm", async () => {
    const { loadPolicy } = await import("@open-policy-agent/opa-wasm");
    const current = await loadPolicy(build());
    useRuntimeBytes(withoutTableExport(runtimeBytes()));
    const older = await loadPolicy(build());
    useRuntimeBytes(undefined);
    const inputs = [{ user: { role: "admin", name: "ada" } }, { user: { role: "dev", name: "bo" }, other: [1, { x: "y" }] }, {}];
    for (const input of inputs) {
      for (const ep of ["p/allow", "p/name"]) expect(older.evaluate(input, ep)).toEqual(current.evaluate(input, ep));
    }
    expect(older.evaluate(inputs[0], "p/allow")).toEqual([{ result: true }]);
  });
});
