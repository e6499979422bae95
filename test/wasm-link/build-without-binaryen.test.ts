/**
 * `toolgate build` links the generated code with the runtime library itself, so a
 * build never loads binaryen (14.8 MB of JavaScript, about half a second and 100 MB);
 * only `--optimize` does.
 */
import { describe, expect, it } from "vitest";
import { cliBin, traceLoads } from "../helpers/cli.js";

const binaryen = (url: string): boolean => url.includes("/node_modules/binaryen/");

describe("toolgate build", () => {
  it("build --check compiles the shipped policy without loading binaryen", () => {
    const run = traceLoads([cliBin, "build", "--check"]);
    expect(run.code, run.stderr).toBe(0);
    // The trace works: the linker is in it.
    expect(run.loaded.some((u) => u.includes("/codegen/wasm/link/link.ts"))).toBe(true);
    expect(run.loaded.filter(binaryen)).toEqual([]);
  });
});
