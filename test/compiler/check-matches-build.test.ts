/**
 * `toolgate check` reports everything `toolgate build` would: a catalogue of
 * policies goes through both commands' code paths (the check command itself, and
 * `buildPolicy`), and every error build reports must be reported by check with
 * the same code and location. Rows are the shapes the planner used to reject on
 * its own (it resolved names, ordered bodies and checked arities a second time).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildPolicy } from "../../codegen/compiler/build.js";
import { runCli } from "../helpers/cli.js";

interface Row {
  readonly note: string;
  readonly source: string;
  readonly entrypoints: readonly string[];
  /** What build reports: `code@row:col` per error, [] when it compiles. */
  readonly build: readonly string[];
}

const deepChain = ["package c", ...Array.from({ length: 1500 }, (_, i) => `p${i} := p${i + 1}`), "p1500 := 1"].join("\n");

const rows: Row[] = [
  {
    note: "a builtin the backend lacks, in the rule the entrypoint reads",
    source: 'package c\np := http.send({"method": "get", "url": "https://example.com"})',
    entrypoints: ["c/p"],
    build: ["rego_type_error@2:6"],
  },
  {
    note: "a builtin the backend lacks, in a rule no entrypoint reaches",
    source: 'package c\np := 1\nq := http.send({"method": "get", "url": "https://example.com"})',
    entrypoints: ["c/p"],
    build: ["rego_type_error@3:6"],
  },
  {
    note: "a builtin the backend lacks, replaced by `with` in one rule and called unreplaced from another",
    source: 'package c\nq := http.send({"method": "get", "url": "u"})\nt if q with http.send as {"status_code": 200}\np := q',
    entrypoints: ["c/p"],
    build: ["rego_type_error@2:6"],
  },
  {
    note: "a function replaced by a local variable, for a call in another rule",
    source: "package c\nf(x) := x\nq := f(1)\np if { y := 2; q == 2 with f as y }",
    entrypoints: ["c/p"],
    build: [],
  },
  {
    note: "a rule chain too deep for a recursive planner",
    source: deepChain,
    entrypoints: ["c/p0"],
    build: [],
  },
  {
    note: "a comprehension reading a variable bound after it",
    source: "package c\nr = a if { a = [x | x := t[1]]; t = [8, 4] }",
    entrypoints: ["c/r"],
    build: [],
  },
  {
    note: "a with target written through an import alias",
    source: 'package c\nimport data.cfg\np := cfg.level\nq := x if { x := p with cfg.level as "warn" }',
    entrypoints: ["c/q"],
    build: [],
  },
  {
    note: "a function parameter named like a rule of the package",
    source: "package c\nf(a) := a + 1\na := f(1)",
    entrypoints: ["c/a"],
    build: [],
  },
];

async function check(dir: string): Promise<string[]> {
  const { stderr } = await runCli(["check", dir]);
  // formatDiagnostic: "<file>:<row>:<col> <code>: <message>"
  return stderr.split("\n").flatMap((line) => {
    const m = /^.*?:(\d+):(\d+):? (\w+): /.exec(line);
    return m === null ? [] : [`${m[3]}@${m[1]}:${m[2]}`];
  });
}

describe("check reports everything build would", () => {
  for (const r of rows) {
    it(r.note, async () => {
      const dir = mkdtempSync(join(tmpdir(), "tg-check-build-"));
      try {
        writeFileSync(join(dir, "policy.rego"), r.source);
        const built = buildPolicy({ policies: dir, out: join(dir, "out"), entrypoints: r.entrypoints, check: true });
        const buildErrors = built.kind === "errors" ? built.errors.map((e) => `${e.code}@${e.location.row}:${e.location.col}`) : [];
        expect(buildErrors).toEqual(r.build);
        const checked = await check(dir);
        for (const e of buildErrors) expect(checked).toContain(e);
        if (buildErrors.length === 0) expect(checked).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
