import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatSource } from "../../codegen/rego/format/index.js";
import { loadCases } from "../conformance/cases.js";
import { defaultCaseDir } from "../helpers/conformance-dir.js";
import { describeConformance } from "../helpers/conformance.js";
import { runCli } from "../helpers/cli.js";
import { roundTrip } from "./roundtrip.js";

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

describeConformance("fmt over every conformance module", () => {
  const modules = loadCases(defaultCaseDir).flatMap((c) => c.modules.map((m, i) => ({ id: `${c.id}/${i}`, m })));
  it("keeps the AST, is idempotent, and checks most modules", () => {
    let checked = 0;
    const broken: string[] = [];
    for (const { id, m } of modules) {
      const r = roundTrip(m, `${id}.rego`);
      if (r.kind === "skipped") continue;
      checked++;
      if (!r.sameAst || r.first !== r.second) broken.push(id);
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(modules.length * 0.9);
  });
});

describeConformance("fmt with comments everywhere", () => {
  // Every conformance module again, with an own-line comment before and a trailing
  // comment after each line (modules with raw strings left out: a comment could land inside one).
  const modules = loadCases(defaultCaseDir).flatMap((c) => c.modules.map((m, i) => ({ id: `${c.id}/${i}`, m })));
  it("keeps every comment, keeps the AST, and is idempotent", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const { id, m } of modules) {
      if (m.includes("`")) continue;
      const src = m.split("\n").map((l, k) => (l.trim() === "" ? l : `# own ${k}\n${l} # tail ${k}`)).join("\n");
      const r = roundTrip(src, `${id}.rego`);
      if (r.kind === "skipped") continue;
      checked++;
      const count = (t: string): number => (t.match(/# (own|tail) \d+/g) ?? []).length;
      if (!r.sameAst || r.first !== r.second || count(r.first) !== count(src)) broken.push(id);
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(modules.length * 0.9);
  });
});

describe("fmt output", () => {
  it("formats a messy module to the expected canonical text", () => {
    const r = formatSource(fixture("messy.rego"), "messy.rego");
    expect(r.ok && r.text).toBe(fixture("messy.formatted.rego"));
  });
  it("keeps every comment, in order", () => {
    const src = fixture("messy.rego");
    const r = formatSource(src, "messy.rego");
    const comments = (t: string): string[] => t.split("\n").flatMap((l) => (l.includes("#") ? [l.slice(l.indexOf("#")).trim()] : []));
    expect(r.ok && comments(r.text)).toEqual(comments(src));
  });
  it.each([
    ["package p\n\nx := (1 + 2) * 3\n", "package p\n\nx := (1 + 2) * 3\n"],
    ["package p\nx := 1 - (2 - 3)\n", "package p\n\nx := 1 - (2 - 3)\n"],
    ["package p\nx := (1 - 2) - 3\n", "package p\n\nx := 1 - 2 - 3\n"],
    ["package p\np if { f(x) == (1 in {1}) }\n", "package p\n\np if f(x) == (1 in {1})\n"],
    ["package p\np if {\n  x\n}\n", "package p\n\np if {\n\tx\n}\n"],
    ["package p\np if {{1} - 1}\n", "package p\n\np if {\n\t{1} - 1\n}\n"],
    ["package p\no := {\"a\": 1, \"b\": [1,\n 2]}\n", "package p\n\no := {\"a\": 1, \"b\": [\n\t1,\n\t2,\n]}\n"],
    ["package p\no := {\"a\": 1,\n\"b\": 2}\n", "package p\n\no := {\n\t\"a\": 1,\n\t\"b\": 2,\n}\n"],
    ["package p\nt if {\n x with input as 1\n   with data.y as 2\n}\n", "package p\n\nt if {\n\tx with input as 1\n\t\twith data.y as 2\n}\n"],
    ["package p\nq = 1\ns contains \"a\"\n", "package p\n\nq = 1\n\ns contains \"a\"\n"],
    ["package p\nr := `raw\\n`\n", "package p\n\nr := `raw\\n`\n"],
    ["package p\nf(x) := 1 if x > 0\nelse := 2\n", "package p\n\nf(x) := 1 if {\n\tx > 0\n} else := 2\n"],
  ])("%j", (src, want) => {
    const r = formatSource(src, "t.rego");
    expect(r.ok && r.text).toBe(want);
  });
  it("reports a parse error and formats nothing", () => {
    const r = formatSource("package p\np if {\n", "bad.rego");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]?.code).toBe("rego_parse_error");
  });
});

describe("toolgate fmt", () => {
  it("--check lists unformatted files and exits 1; -w fixes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fmt-"));
    const file = join(dir, "a.rego");
    writeFileSync(file, fixture("messy.rego"));
    const unformatted = await runCli(["fmt", "--check", dir]);
    expect(unformatted.code).toBe(1);
    expect(unformatted.stdout.split("\n")).toContain(file);
    expect((await runCli(["fmt", "-w", dir])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(fixture("messy.formatted.rego"));
    expect((await runCli(["fmt", "--check", dir])).code).toBe(0);
  });
});
