/**
 * The `public` rows of `npm run bench` (bench/public): without TOOLGATE_BENCH_PUBLIC they
 * are skipped with a line saying how to get the cases; a case directory that cannot be
 * read or compiled is listed as not measured, with the path and the reason; a readable
 * case gives time rows per input, a memory row and a size row, each with the module
 * next to the Rego as its anchor, and a note when the two results differ. (The stand-in
 * "OPA-built" modules here are compiled by toolgate: the public ones are not in the
 * repository.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { compareResults } from "../../bench/public/measure.js";
import { PUBLIC_ENV, publicSource } from "../../bench/public/source.js";
import type { BenchRow, RowResult } from "../../bench/rows.js";
import { compilePolicy } from "../../codegen/compiler/index.js";

const POLICY = `package example
import rego.v1

default hello := false

hello if input.message == data.world
`;

let root: string;
const saved = process.env[PUBLIC_ENV];

function wasmOf(source: string, entrypoint: string): Uint8Array {
  const r = compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints: [entrypoint] });
  if (r.wasm === null) throw new Error(JSON.stringify(r.errors));
  return r.wasm;
}

function writeCase(name: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, name, path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, content);
  }
}

const run = (): Promise<RowResult> => publicSource.run({ quick: true, pgUrl: undefined, log: () => undefined });
const rowsOf = (r: RowResult): readonly BenchRow[] => ("rows" in r ? r.rows : []);
const missingOf = (r: RowResult): readonly string[] => ("rows" in r ? (r.missing ?? []) : []);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "toolgate-bench-public-"));
  const inputs = { "inputs/match.json": '{"message": "world"}', "inputs/no-match.json": '{"message": "mars"}' };
  writeCase("example", { "policy.wasm": wasmOf(POLICY, "example/hello"), "example.rego": POLICY, "data.json": '{"world": "world"}', ...inputs });
  // the module next to the Rego was built from other Rego: the two disagree
  writeCase("stale-module", { "policy.wasm": wasmOf(POLICY.replace("default hello := false", "default hello := 0"), "example/hello"), "example.rego": POLICY, "data.json": '{"world": "world"}', ...inputs });
  writeCase("no-module", { "example.rego": POLICY, ...inputs });
  writeCase("no-inputs", { "policy.wasm": wasmOf(POLICY, "example/hello"), "example.rego": POLICY });
  writeCase("unsafe", { "policy.wasm": wasmOf(POLICY, "example/hello"), "example.rego": "package example\n\nhello if x == 1\n", ...inputs, entrypoint: "example/hello\n" });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  if (saved === undefined) delete process.env[PUBLIC_ENV];
  else process.env[PUBLIC_ENV] = saved;
});

describe("bench public rows", () => {
  it("without TOOLGATE_BENCH_PUBLIC, or with a directory that is not there, the source is skipped saying why", async () => {
    delete process.env[PUBLIC_ENV];
    expect(await run()).toEqual({ skipped: expect.stringMatching(/^TOOLGATE_BENCH_PUBLIC is not set: .*bench\/public\/README\.md/) });
    process.env[PUBLIC_ENV] = join(root, "nowhere");
    expect(await run()).toEqual({ skipped: expect.stringContaining("no such directory") });
  });

  it("measures each readable case and lists every other one with its reason", async () => {
    process.env[PUBLIC_ENV] = root;
    const result = await run();
    const rows = rowsOf(result);
    const example = rows.filter((r) => r.what.startsWith("public example:"));
    expect(example.map((r) => [r.what, r.unit])).toEqual([
      ["public example: example/hello, inputs/match.json (20 B), CPU time per evaluation", "µs/evaluation"],
      ["public example: example/hello, inputs/no-match.json (19 B), CPU time per evaluation", "µs/evaluation"],
      ["public example: Wasm memory after evaluating inputs/match.json", "MiB"],
      ["public example: module size", "KiB"],
    ]);
    for (const r of example) {
      expect(r.anchors.map((a) => a.label)).toEqual(["OPA-built module, same SDK"]);
      expect(r.toolgate.value).toBeGreaterThan(0);
      expect(r.anchors[0]!.value).toBeGreaterThan(0);
      expect(r.notes ?? []).toEqual([]);
    }
    const stale = rows.find((r) => r.what.startsWith("public stale-module:") && r.what.includes("no-match.json"));
    expect(stale?.notes).toEqual([expect.stringMatching(/^RESULTS DIFFER in 1 place\(s\) even with arrays compared as sets; first: result\[0\]\.result: toolgate false vs OPA 0$/)]);
    const missing = missingOf(result);
    expect(missing).toEqual([
      expect.stringMatching(/^public no-inputs: .*no-inputs\/inputs: missing \(one JSON input per file\)$/),
      expect.stringMatching(/^public no-module: .*no-module\/policy\.wasm: missing/),
      expect.stringMatching(/^public unsafe: toolgate does not compile the case's Rego \(\d+ errors?\): unsafe\/example\.rego:3:\d+ rego_unsafe_var_error/),
    ]);
  });

  it("results that differ only in the order of a set's elements are the same value, said so", () => {
    expect(compareResults([{ result: { s: [1, 2] } }], [{ result: { s: [1, 2] } }])).toEqual([]);
    expect(compareResults([{ result: { s: [{ a: 1 }, { a: 2 }] } }], [{ result: { s: [{ a: 2 }, { a: 1 }] } }])).toEqual([expect.stringMatching(/^same values; some arrays list their elements in another order/)]);
    expect(compareResults([{ result: { s: [1, 2], t: "x" } }], [{ result: { s: [2, 1] } }])).toEqual([expect.stringContaining("result[0].result.t: only in toolgate's result")]);
  });
});
