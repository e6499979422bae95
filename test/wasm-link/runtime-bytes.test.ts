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
