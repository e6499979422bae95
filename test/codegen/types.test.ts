import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const fixture = new URL("../fixtures/typecheck/handlers.ts", import.meta.url).pathname;
const options: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

/** Compiles the fixture, optionally with its `@ts-expect-error` lines blanked; returns error lines (1-based). */
function errorLines(stripDirectives: boolean): number[] {
  const original = readFileSync(fixture, "utf8");
  const text = stripDirectives ? original.replace(/\/\/ @ts-expect-error[^\n]*/g, "//") : original;
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === fixture ? text : read(name));
  const program = ts.createProgram([fixture], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === fixture)
    .map((d) => (d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : -1));
}

describe("generated handler types are strict", () => {
  const directiveLines = readFileSync(fixture, "utf8")
    .split("\n")
    .flatMap((line, i) => (line.startsWith("// @ts-expect-error") ? [i + 2] : []));

  it("the fixture compiles: every @ts-expect-error line is a real error", () => {
    expect(directiveLines.length).toBeGreaterThanOrEqual(6);
    expect(errorLines(false)).toEqual([]);
  });

  it("without the directives, exactly the marked lines fail", () => {
    expect([...new Set(errorLines(true))].sort((a, b) => a - b)).toEqual(directiveLines);
  });
});
