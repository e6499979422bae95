/**
 * Why a test failed (`toolgate test -v`): the test body is compiled again as
 * queries over growing prefixes (first expression, first two, ...). The first
 * prefix without a solution ends at the failing expression; the solution of the
 * prefix before it holds the values of the variables involved.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";
import type { Module } from "../rego/ast.js";
import { printExpr, printInlineBody } from "../rego/format/terms.js";
import type { CompileOptions, CompileResult } from "../compiler/types.js";
import type { PolicyTest } from "./discover.js";
import { qualifyBody, scopeOf } from "./qualify.js";

export interface Explanation {
  /** The expression that did not hold, as source text, with its file:row. */
  readonly expr: string;
  readonly at: string;
  /** Variables bound by the expressions before it (first solution). */
  readonly bindings: Readonly<Record<string, unknown>>;
}

type Compile = (o: CompileOptions) => CompileResult;

export async function explainFailure(
  test: PolicyTest,
  modules: readonly Module[],
  sources: CompileOptions["modules"],
  compile: Compile,
): Promise<Explanation | null> {
  const module = modules.find((m) => m.file === test.file);
  const rule = module?.rules.find((r) => r.head.ref[0]?.type === "var" && r.head.ref[0].name === test.rule);
  if (module === undefined || rule === undefined || rule.body.length === 0) return null;
  const samePackage = modules.filter((m) => m.package.path.join(".") === module.package.path.join("."));
  const body = qualifyBody(rule.body, scopeOf(module, samePackage));
  const queries = body.map((_, i) => ({ name: `explain/prefix_${i + 1}`, body: printInlineBody(body.slice(0, i + 1)) }));
  const out = compile({ modules: sources, entrypoints: [], queries, optimize: false });
  if (out.wasm === null) return null;
  const policy = await loadPolicy(out.wasm, undefined, hostBuiltins);
  let previous: Record<string, unknown> = {};
  for (let i = 0; i < body.length; i++) {
    let rs: unknown;
    try {
      rs = policy.evaluate(undefined, `explain/prefix_${i + 1}`);
    } catch {
      return null;
    }
    const first = Array.isArray(rs) ? (rs[0] as Record<string, unknown> | undefined) : undefined;
    if (first === undefined) {
      const e = rule.body[i]!;
      return { expr: printExpr(e, (b) => `{${printInlineBody(b)}}`), at: `${test.file}:${e.location.row}`, bindings: previous };
    }
    previous = first;
  }
  return null;
}
