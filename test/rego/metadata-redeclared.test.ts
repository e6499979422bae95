/** A second package / document / subpackages METADATA block is OPA's `rego_type_error` "<scope> annotation redeclared". */
import { describe, expect, it } from "vitest";
import { compileModules } from "../../codegen/rego/index.js";

describe("METADATA blocks redeclared", () => {
  it("two package blocks in two files: the error is at the block of the later file, naming the first", () => {
    const a = "# METADATA\n# title: A\npackage x\n\np := 1\n";
    const r = compileModules([
      { file: "b.rego", source: "# METADATA\n# title: B\npackage x\n\nq := 1\n" },
      { file: "a.rego", source: a },
    ]);
    expect(r.errors).toEqual([
      { code: "rego_type_error", message: "package annotation redeclared: a.rego:1:1", location: { file: "b.rego", row: 1, col: 1 }, hint: "merge the two METADATA blocks into one" },
    ]);
  });

  it("two package blocks above one package statement", () => {
    const r = compileModules([{ file: "one.rego", source: "# METADATA\n# title: A\n\n# METADATA\n# title: B\npackage x\n\np := 1\n" }]);
    expect(r.errors.map((e) => [e.code, e.message, e.location.row, e.location.col])).toEqual([["rego_type_error", "package annotation redeclared: one.rego:1:1", 4, 1]]);
  });

  it("two document blocks for one rule path, in one file", () => {
    const src = "package x\n\n# METADATA\n# scope: document\n# title: d1\np := 1\n\n# METADATA\n# scope: document\n# title: d2\np := 2 if false\n";
    const r = compileModules([{ file: "d.rego", source: src }]);
    expect(r.errors.map((e) => [e.code, e.message, e.location.row, e.location.col])).toEqual([["rego_type_error", "document annotation redeclared: d.rego:3:1", 8, 1]]);
  });

  it("one package block per package and rule blocks anywhere are fine", () => {
    const r = compileModules([
      { file: "a.rego", source: "# METADATA\n# title: A\npackage x\n\n# METADATA\n# title: r\np := 1\n" },
      { file: "b.rego", source: "# METADATA\n# title: B\npackage x.y\n\n# METADATA\n# title: r\np := 1\n\n# METADATA\n# title: again\np := 1\n" },
    ]);
    expect(r.errors).toEqual([]);
  });
});
