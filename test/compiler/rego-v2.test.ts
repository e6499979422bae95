/**
 * Rego v2 (OPA 1.22): a file read as v2 behaves as if it imported rego.v2 (`and`, `or`,
 * the composite `not`), and a bundle built from v2 sources says `rego_version: 2`.
 */
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bundleBytes } from "../../codegen/compiler/bundle.js";
import { compileModules } from "../../codegen/rego/index.js";

const manifestOf = (bytes: Uint8Array): unknown => {
  const tar = gunzipSync(bytes).toString("utf8");
  const start = tar.indexOf('{\n  "revision"');
  return JSON.parse(tar.slice(start, tar.indexOf("\n}\n", start) + 2));
};

describe("Rego v2 sources", () => {
  const src = "package t\n\np if input.a or input.b\n";
  it("a file read as v2 has and / or without an import", () => {
    expect(compileModules([{ file: "t.rego", source: src, regoVersion: "v2" }]).errors).toEqual([]);
    expect(compileModules([{ file: "t.rego", source: src }]).errors.map((e) => e.code)).toEqual(["rego_parse_error"]);
  });
  it("the bundle manifest carries the sources' Rego version (2 for v2, 0 for v0, 1 by default)", () => {
    const wasm = new Uint8Array([0, 97, 115, 109]);
    expect(manifestOf(bundleBytes({ wasm, data: {}, entrypoints: ["t/p"], regoVersion: "v2" }))).toMatchObject({ rego_version: 2 });
    expect(manifestOf(bundleBytes({ wasm, data: {}, entrypoints: ["t/p"], regoVersion: "v0" }))).toMatchObject({ rego_version: 0 });
    expect(manifestOf(bundleBytes({ wasm, data: {}, entrypoints: ["t/p"] }))).toMatchObject({ rego_version: 1 });
  });
});
