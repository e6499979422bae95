/**
 * Robustness: random token soup and mutated conformance modules never make the
 * front end throw or hang, and always yield a program or located errors.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileModules, parseQuery, parseTerm } from "../../codegen/rego/index.js";
import { loadConformanceCases } from "../helpers/conformance-modules.js";
import { itConformance } from "../helpers/conformance.js";

const CODES = new Set(["rego_parse_error", "rego_compile_error", "rego_type_error", "rego_unsafe_var_error", "rego_recursion_error"]);
const TOKENS = [
  "package", "p", "q", "x", "y", "_", "input", "data", "import", "as", "default", "if", "contains", "else", "not", "some", "every",
  "in", "with", ":=", "=", "==", "!=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "(", ")", "[", "]", "{", "}", ",", ";", ":",
  ".", "\n", " ", "1", "2.5e3", '"s"', "`r`", "true", "null", "count", "f", "#c\n", "$", "\"\\u12", "set()",
];

function checkResult(source: string): void {
  const t0 = performance.now();
  const r = compileModules([{ file: "m.rego", source }]);
  const ms = performance.now() - t0;
  // Generous bound: the machine is shared; a hang or blow-up would be orders of magnitude slower.
  expect(ms).toBeLessThan(2000 + source.length);
  expect(r.program === null).toBe(r.errors.length > 0);
  expect(r.errors.length).toBeLessThanOrEqual(10);
  for (const e of r.errors) {
    expect(CODES.has(e.code), e.code).toBe(true);
    expect(e.location.file).toBe("m.rego");
    expect(e.location.row).toBeGreaterThanOrEqual(1);
    expect(e.location.col).toBeGreaterThanOrEqual(1);
  }
}

describe("front end robustness (fast-check)", () => {
  const conformanceSources = (): string[] =>
    loadConformanceCases()
      .flatMap((c) => c.modules.map((m) => m.source))
      .filter((s, i, all) => all.indexOf(s) === i);

  it("random token sequences", () => {
    const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 80 }).map((ts) => `package t\n${ts.join(" ")}`);
    fc.assert(fc.property(soup, (src) => checkResult(src)), { numRuns: 300 });
  });

  it("arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (src) => checkResult(src)), { numRuns: 200 });
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (src) => {
        expect(() => parseQuery(src)).not.toThrow();
        expect(() => parseTerm(src)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });

  itConformance("mutated conformance modules", () => {
    const modules = conformanceSources();
    const mutation = fc.record({
      module: fc.nat({ max: modules.length - 1 }),
      at: fc.nat(),
      len: fc.nat({ max: 12 }),
      kind: fc.constantFrom("delete", "insert", "duplicate", "replace"),
      token: fc.constantFrom(...TOKENS),
    });
    fc.assert(
      fc.property(mutation, ({ module, at, len, kind, token }) => {
        const src = modules[module] as string;
        const i = at % (src.length + 1);
        let out: string;
        switch (kind) {
          case "delete":
            out = src.slice(0, i) + src.slice(i + len);
            break;
          case "insert":
            out = src.slice(0, i) + token + src.slice(i);
            break;
          case "duplicate":
            out = src.slice(0, i + len) + src.slice(i, i + len) + src.slice(i + len);
            break;
          default:
            out = src.slice(0, i) + token + src.slice(i + len);
        }
        checkResult(out);
      }),
      { numRuns: 400 },
    );
  });

  it("deep nesting is an error, not a crash", () => {
    for (const [open, close] of [["[", "]"], ["{", "}"], ["(", ")"], ["[x | ", "]"]] as const) {
      checkResult(`package t\np := ${open.repeat(3000)}1${close.repeat(3000)}`);
    }
    checkResult(`package t\np := ${"1 + ".repeat(3000)}1`);
    checkResult(`package t\np := x if {\n${"  x := 1\n".repeat(2000)}}`);
  });
});
