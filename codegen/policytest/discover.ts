/**
 * Finds the tests in parsed modules: rules named `test_*` (run) and `todo_*`
 * (reported as skipped) in `*_test.rego` files, as OPA's `opa test` names them.
 */
import type { Module, Rule } from "../rego/ast.js";

export interface PolicyTest {
  /** `data.<package>.<rule>`, what `--run` matches and reports print. */
  readonly name: string;
  readonly pkg: string;
  readonly rule: string;
  /** Entrypoint path: `<package/with/slashes>/<rule>`. */
  readonly entrypoint: string;
  readonly file: string;
  readonly row: number;
  readonly col: number;
  readonly todo: boolean;
}

export const isTestFile = (file: string): boolean => file.endsWith("_test.rego");

/** One test per (package, rule name), at its first definition, in file order. */
export function discoverTests(modules: readonly Module[]): PolicyTest[] {
  const seen = new Set<string>();
  const out: PolicyTest[] = [];
  for (const m of modules) {
    if (!isTestFile(m.file)) continue;
    const pkgPath = m.package.path.slice(1);
    for (const r of m.rules) {
      const rule = testRuleName(r);
      if (rule === null) continue;
      const name = ["data", ...pkgPath, rule].join(".");
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({
        name,
        pkg: ["data", ...pkgPath].join("."),
        rule,
        entrypoint: [...pkgPath, rule].join("/"),
        file: m.file,
        row: r.location.row,
        col: r.location.col,
        todo: rule.startsWith("todo_"),
      });
    }
  }
  return out;
}

/** The rule's name when it is a test: a plain `test_x`/`todo_x` value rule (not a function). */
function testRuleName(r: Rule): string | null {
  if (r.head.kind !== "value" || r.head.ref.length !== 1 || r.default) return null;
  const head = r.head.ref[0];
  if (head === undefined || head.type !== "var") return null;
  return /^(test|todo)_/.test(head.name) ? head.name : null;
}
