/** The ESLint rules that state the module boundaries fire on violations (and `npm test` runs them). */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo.js";

const eslint = new ESLint({ cwd: repoRoot });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? "fatal"}: ${m.message}`);
}

describe("module boundaries", () => {
  it("the run-time library may not import the build tools", async () => {
    for (const dir of ["runtime", "policy", "store"]) {
      const found = await problems(`src/${dir}/probe.ts`, 'import { formatDiagnostic } from "../../codegen/diagnostics.js";\nexport const f = formatDiagnostic;\n');
      expect(found.join("\n"), dir).toContain("import-x/no-restricted-paths");
    }
  });

  it("the run-time library and the rest of src may not import the CLI", async () => {
    const found = await problems("src/runtime/probe.ts", 'import { main } from "../cli/main.js";\nexport const m = main;\n');
    expect(found.join("\n")).toContain("import-x/no-restricted-paths");
    expect(await problems("src/server/probe.ts", 'import { main } from "../cli/main.js";\nexport const m = main;\n')).toEqual([
      expect.stringContaining("src/cli is the composition root"),
    ]);
  });

  it("the CLI may import the build tools and the library", async () => {
    expect(await problems("src/cli/probe.ts", 'import { formatDiagnostic } from "../../codegen/diagnostics.js";\nimport { createRuntime } from "../runtime/index.js";\nexport const f = [formatDiagnostic, createRuntime];\n')).toEqual([]);
  });

  it("generated code imports only toolgate/generated-runtime", async () => {
    expect(await problems("generated/probe.ts", 'import type { Manifest } from "toolgate/generated-runtime";\nexport type M = Manifest;\n')).toEqual([]);
    expect((await problems("generated/probe.ts", 'import { createRuntime } from "../src/runtime/index.js";\nexport const c = createRuntime;\n')).join("\n")).toContain("generated code imports only toolgate/generated-runtime");
    expect((await problems("generated/probe.ts", 'import { parse } from "yaml";\nexport const p = parse;\n')).join("\n")).toContain("generated code imports only toolgate/generated-runtime");
  });

  it("a specifier held in a variable is rejected; a literal or a user's file by path is not", async () => {
    expect((await problems("src/policy/probe.ts", 'const m = "../../codegen/compiler/index.js";\nexport const load = () => import(m);\n')).join("\n")).toContain("hides a dependency");
    expect(await problems("src/policy/probe.ts", 'export const load = () => import("./engine.js");\n')).toEqual([]);
    expect(await problems("src/cli/probe.ts", 'import { pathToFileURL } from "node:url";\nexport const load = (f: string) => import(pathToFileURL(f).href);\n')).toEqual([]);
  });

  it("a runtime <-> approvals folder cycle is an error: src/approvals may not import src/runtime, not even a type", async () => {
    for (const code of ['import { createRuntime } from "../runtime/index.js";\nexport const c = createRuntime;\n', 'import type { RuntimeDeps } from "../runtime/types.js";\nexport type D = RuntimeDeps;\n']) {
      expect((await problems("src/approvals/probe.ts", code)).join("\n")).toContain("no runtime <-> approvals folder cycle");
    }
    expect((await problems("src/call-data/probe.ts", 'import { createApprovals } from "../approvals/index.js";\nexport const c = createApprovals;\n')).join("\n")).toContain("src/call-data is below");
    // The allowed direction: the gate composes the approvals.
    expect(await problems("src/runtime/probe.ts", 'import { createApprovals } from "../approvals/index.js";\nexport const c = createApprovals;\n')).toEqual([]);
  });

  it("no module in src/approvals or src/call-data imports src/runtime", () => {
    const importsOf = (file: string): string[] => [...readFileSync(file, "utf8").matchAll(/(?:from|import\()\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => relative(repoRoot, resolve(dirname(file), m[1] as string)));
    for (const dir of ["src/approvals", "src/call-data"]) {
      for (const name of readdirSync(join(repoRoot, dir)).filter((n) => n.endsWith(".ts"))) {
        const file = join(repoRoot, dir, name);
        expect(importsOf(file).filter((p) => p.startsWith("src/runtime/")), `${dir}/${name}`).toEqual([]);
      }
    }
  });

  it("an import cycle is an error", async () => {
    const cycle = new ESLint({ cwd: repoRoot, ignore: false });
    const results = await cycle.lintFiles([join(repoRoot, "test/fixtures/lint-cycle/a.ts")]);
    expect(results.flatMap((r) => r.messages.map((m) => m.ruleId))).toContain("import-x/no-cycle");
  });
});

/** The import specifiers of a module's text: static imports and exports, import(), and `new URL(..., import.meta.url)` (a worker script). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)["'`](\.{1,2}\/[^"'`$]*)["'`]/g)) found.push(m[1] as string);
  return found;
}

/**
 * What a file of test/ or bench/ may import of the other: bench/ only test/helpers/ (fixtures both
 * use); test/helpers/ nothing of bench/ or of the rest of test/; the rest of test/ bench/ only from
 * test/bench/ (the tests of the bench-report code).
 */
function crossImportProblem(file: string, specifier: string): string | null {
  const target = relative(repoRoot, resolve(dirname(join(repoRoot, file)), specifier)).split("\\").join("/");
  const inside = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);
  if (inside(file, "bench") && inside(target, "test") && !inside(target, "test/helpers")) return `${file} imports ${target}: bench may import only test/helpers/ of test/`;
  if (inside(file, "test/helpers") && (inside(target, "bench") || (inside(target, "test") && !inside(target, "test/helpers")))) {
    return `${file} imports ${target}: test/helpers/ is shared with bench/ and imports neither bench/ nor the rest of test/`;
  }
  if (inside(file, "test") && !inside(file, "test/helpers") && !inside(file, "test/bench") && inside(target, "bench")) {
    return `${file} imports ${target}: only test/bench/ (the bench-report tests) imports bench/; move what both need to test/helpers/`;
  }
  return null;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mts|mjs|js)$/.test(e.name))
    .map((e) => relative(repoRoot, join(e.parentPath, e.name)).split("\\").join("/"))
    .filter((f) => !f.startsWith("test/fixtures/") && !f.startsWith("test/artifacts/"));
}

describe("test and bench", () => {
  it("bench imports only test/helpers of test, test/helpers neither bench nor the rest of test, and test bench only from test/bench", () => {
    const problems = [...sourceFiles("bench"), ...sourceFiles("test")].flatMap((file) =>
      specifiers(readFileSync(join(repoRoot, file), "utf8")).flatMap((s) => crossImportProblem(file, s) ?? []),
    );
    expect(problems).toEqual([]);
  });

  it("the check rejects a bench -> test import, a helper reaching into a suite and a suite reaching into bench", () => {
    expect(crossImportProblem("bench/x.bench.ts", "../test/runtime/harness.js")).toContain("bench may import only test/helpers/");
    expect(crossImportProblem("bench/policy/x.ts", "../../test/workers/gate-worker.ts")).toContain("bench may import only test/helpers/");
    expect(crossImportProblem("bench/x.bench.ts", "../test/helpers/pg-env.js")).toBeNull();
    expect(crossImportProblem("test/helpers/x.ts", "../runtime/harness.js")).toContain("test/helpers/ is shared");
    expect(crossImportProblem("test/helpers/workers/x.ts", "../../../bench/rows.js")).toContain("test/helpers/ is shared");
    expect(crossImportProblem("test/runtime/x.test.ts", "../../bench/rows.js")).toContain("only test/bench/");
    expect(crossImportProblem("test/bench/report.test.ts", "../../bench/report.js")).toBeNull();
    expect(specifiers('import { a } from "../test/x.js";\nexport { b } from "./y.js";\nconst w = new URL("../test/w.ts", import.meta.url);\nawait import("../z.js");')).toEqual(["../test/x.js", "./y.js", "../test/w.ts", "../z.js"]);
  });
});
