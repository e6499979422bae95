/** Table tests per compiler stage, using `stopAfter` to see what each stage leaves. */
import { describe, expect, it } from "vitest";
import { compileModules, prettyGroup, type StageName } from "../../codegen/rego/index.js";

function dumpAfter(stage: StageName, src: string): string {
  const r = compileModules([{ file: "t.rego", source: `package t\n${src}` }], { stopAfter: stage });
  expect(r.errors).toEqual([]);
  const names = new Map<string, string>();
  return r
    .program!.groups.filter((g) => g.path.join(".") === "data.t.p")
    .map(prettyGroup)
    .join("\n")
    .replace(/__local\d+__/g, (m) => {
      if (!names.has(m)) names.set(m, `$${names.size}`);
      return names.get(m)!;
    });
}

const src = ["import data.lib as l", "q := 1", "p := y if {", "  y > q", "  some x in l.xs", "  y = count(x) + 1", "}"].join("\n");

describe("compiler stages", () => {
  const table: [StageName, string[]][] = [
    [
      "scope",
      [
        "data.t.p := $0 if {",
        "  gt($0, data.t.q)",
        "  some $1 in data.lib.xs",
        "  eq($0, plus(count($1), 1))",
        "}",
      ],
    ],
    [
      "flatten",
      [
        "data.t.p := $0 if {",
        "  gt($0, data.t.q)",
        "  eq($1, data.lib.xs[$2])",
        "  count($1, $3)",
        "  plus($3, 1, $4)",
        "  eq($0, $4)",
        "}",
      ],
    ],
    [
      "safety",
      [
        "data.t.p := $0 if {",
        "  eq($1, data.lib.xs[$2])  # binds $2, $1",
        "  count($1, $3)  # binds $3",
        "  plus($3, 1, $4)  # binds $4",
        "  eq($0, $4)  # binds $0",
        "  gt($0, data.t.q)",
        "}",
      ],
    ],
  ];
  for (const [stage, lines] of table) {
    it(`after ${stage}`, () => {
      expect(dumpAfter(stage, src)).toBe(["# data.t.p (complete)", ...lines].join("\n"));
    });
  }

  it("stops at the first stage with errors", () => {
    const r = compileModules([{ file: "t.rego", source: "package t\np if { x }\nq if q" }]);
    expect(r.errors.map((e) => e.code)).toEqual(["rego_unsafe_var_error"]);
    expect(r.program).toBeNull();
  });
});
