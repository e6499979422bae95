/**
 * Planner entry: the front end's checked program plus entrypoints and compiled
 * queries -> IR policy. Entrypoint plans add `{"result": value}` to the result set;
 * query plans add one object of the query's variable bindings per solution, as OPA does.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Term } from "../rego/ast.js";
import type { CompiledQuery, Program } from "../rego/program.js";
import { BlockWriter, StaticTable } from "./builder.js";
import type { Ctx, PlannerOps, Shared } from "./context.js";
import type { Block, Plan, Policy, RuleResult } from "./ir.js";
import { DATA, INPUT, local } from "./ir.js";
import { planBody } from "./plan-body.js";
import { planData, planRef } from "./plan-ref.js";
import { planPending, ruleFunc } from "./plan-rules.js";
import { planTerm, unify, unifyOperand } from "./plan-term.js";
import type { CoveragePoint } from "./coverage.js";
import { coverageMap } from "./coverage.js";
import { buildRuleIndex } from "./rule-index.js";
import { nested } from "./scope.js";

export interface PlanQuery {
  readonly name: string;
  readonly query: CompiledQuery;
}

export interface PlanOptions {
  /** The front end's checked, rewritten program (`compileModules`). */
  readonly program: Program;
  /** Source files in input order (coverage points follow it). */
  readonly files: readonly string[];
  /** Rule paths with slashes: "toolgate/authz/decision". */
  readonly entrypoints: readonly string[];
  /** Queries compiled against the program (`compileQuery`). */
  readonly queries: readonly PlanQuery[];
  /** Builtins the backend can call: name -> arity. */
  readonly builtins: ReadonlyMap<string, number>;
  /** Emit coverage points (CoverStmt) for the program's expressions and heads. */
  readonly coverage?: boolean;
  /** Index rules that test an input path against constants (default true; rule-dispatch.ts). */
  readonly ruleIndex?: boolean;
}

export interface PlanResult {
  readonly policy: Policy;
  readonly coverage?: CoveragePoint[];
  readonly errors: Diagnostic[];
  readonly entrypointIds: Record<string, number>;
}

const ops: PlannerOps = { body: planBody, term: planTerm, unify, unifyOperand, ref: planRef, ruleFunc };

/**
 * Never throws: exhausting the stack (a body nested beyond what the planner's
 * recursion holds) or an internal failure is a located error at the rule being planned.
 */
export function planPolicy(opts: PlanOptions): PlanResult {
  const at: { s: Shared | null } = { s: null };
  try {
    return planPolicyUnsafe(opts, at);
  } catch (e) {
    const first = opts.program.groups[0]?.rules[0]?.location;
    const location = at.s?.at ?? first ?? { file: "policy", row: 1, col: 1 };
    const policy: Policy = { static: { strings: [], builtinFuncs: [], files: [] }, plans: [], funcs: [] };
    const message = e instanceof RangeError ? "policy too deeply nested to compile" : `internal compiler error: ${e instanceof Error ? e.message : String(e)}`;
    return { policy, entrypointIds: {}, errors: [{ code: "rego_compile_error", message, location }] };
  }
}

function planPolicyUnsafe(opts: PlanOptions, at: { s: Shared | null }): PlanResult {
  const s: Shared = {
    statics: new StaticTable(),
    index: buildRuleIndex(opts.program),
    funcs: [],
    pending: [],
    funcNames: new Map(),
    errors: [],
    ops,
    builtins: opts.builtins,
    coverage: opts.coverage === true ? coverageMap(opts.program, opts.files) : null,
    ruleIndex: opts.ruleIndex !== false,
    at: null,
    captures: 0,
  };
  at.s = s;
  const plans: Plan[] = [];
  const entrypointIds: Record<string, number> = {};
  const newCtx = (): Ctx => ({ s, w: new BlockWriter(), vars: new Map(), input: INPUT, data: DATA, mocks: new Map(), captured: new Map(), depth: 0 });
  for (const ep of opts.entrypoints) {
    const c = newCtx();
    const loc = { file: "entrypoint", row: 1, col: 1 };
    const path: Term[] = ep.split("/").filter((p) => p !== "").map((value) => ({ type: "string", value, location: loc }));
    const results: RuleResult[] = [];
    const block = nested(c, () =>
      planData(c, path, (o) => {
        const r = c.w.newLocal();
        c.w.emit({ type: "MakeObjectStmt", target: r });
        c.w.emit({ type: "ObjectInsertStmt", object: r, key: { kind: "string", index: s.statics.string("result") }, value: o });
        c.w.emit({ type: "ResultSetAddStmt", value: r });
        if (o.kind === "local") results.push({ value: o.local, wrapper: r });
      }),
    );
    entrypointIds[ep] = plans.length;
    // The value alone is known only when one statement adds it and it is a local.
    const single = results.length === 1 && countResultAdds(block) === 1 ? results[0]! : undefined;
    plans.push({ name: ep, blocks: [block], ...(single === undefined ? {} : { ruleResult: single }) });
  }
  for (const q of opts.queries) {
    const c = newCtx();
    const names = q.query.vars;
    const block = nested(c, () =>
      planBody(c, q.query.body, () => {
        const r = c.w.newLocal();
        c.w.emit({ type: "MakeObjectStmt", target: r });
        for (const n of names) {
          const l = c.vars.get(n);
          if (l === undefined || l < 0) continue;
          c.w.emit({ type: "ObjectInsertStmt", object: r, key: { kind: "string", index: s.statics.string(n) }, value: local(l) });
        }
        c.w.emit({ type: "ResultSetAddStmt", value: r });
      }),
    );
    entrypointIds[q.name] = plans.length;
    plans.push({ name: q.name, blocks: [block] });
  }
  planPending(newCtx());
  const policy: Policy = {
    static: { strings: s.statics.strings, builtinFuncs: s.statics.builtins, files: s.statics.files, consts: s.statics.consts },
    plans,
    funcs: s.funcs,
    ...(s.coverage === null ? {} : { coveragePoints: s.coverage.points.length }),
  };
  return { policy, errors: s.errors, entrypointIds, ...(s.coverage === null ? {} : { coverage: s.coverage.points }) };
}

function countResultAdds(b: Block): number {
  let n = 0;
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (v === null || typeof v !== "object") return;
    if ((v as { type?: unknown }).type === "ResultSetAddStmt") n++;
    for (const x of Object.values(v)) if (typeof x === "object") visit(x);
  };
  visit(b);
  return n;
}
