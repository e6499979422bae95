/**
 * `toolgate build` loads only what compiling needs: the generated code is linked with
 * the runtime library without binaryen (14.8 MB of JavaScript, about half a second
 * and 100 MB; only `--optimize` loads it), and tools.yaml is read for its policy
 * section alone (the full loader compiles the file and tool schemas with ajv, which
 * costs most of a second).
 */
import { describe, expect, it } from "vitest";
import { traceLoads } from "../helpers/cli-process.js";
import { cliBin } from "../helpers/repo.js";

const binaryen = (url: string): boolean => url.includes("/node_modules/binaryen/");
// The full tools.yaml loader: the file schema and the tools' schemas compiled with ajv.
const fullLoader = (url: string): boolean => /\/codegen\/toolsyaml\/(index|validate-shape|schema-compiler|check-semantics)\.ts$/.test(url);

describe("toolgate build", () => {
  it("build --check compiles the shipped policy without binaryen or the full tools.yaml loader", async () => {
    const run = await traceLoads([cliBin, "build", "--check"]);
    expect(run.code, run.stderr).toBe(0);
    // The trace works: the linker and the YAML parser are in it.
    expect(run.loaded.some((u) => u.includes("/codegen/wasm/link/link.ts"))).toBe(true);
    expect(run.loaded.some((u) => u.includes("/node_modules/yaml/"))).toBe(true);
    expect(run.loaded.filter(binaryen)).toEqual([]);
    expect(run.loaded.filter(fullLoader)).toEqual([]);
  });

  it("build --optimize --check loads binaryen (its decisions are compared in test/wasm-link/linked-module.test.ts)", async () => {
    const run = await traceLoads([cliBin, "build", "--optimize", "--check"]);
    // The optimised module differs from the checked-in default build.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("generated/policy.wasm");
    expect(run.loaded.filter(binaryen).length).toBeGreaterThan(0);
  });
});
