/**
 * Type check of calls in compiled bodies: arity of builtins and functions, and
 * argument types where they are settled: literals, and locals bound earlier in
 * the (safety-ordered) body to a literal or to a builtin result of one type
 * (`x := "a"; x + 1` is an error).
 * Reports `rego_type_error`. Runs on flattened bodies, where a call may carry
 * one trailing output argument.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, CallExpr, Expr, Term } from "./ast.js";
import { lookupBuiltin, type ValueType } from "./builtins.js";
import { parseTemplate } from "../../src/policy/host-builtins/go-template-parse.js";

function literalType(t: Term): ValueType | null {
  switch (t.type) {
    case "null":
      return "null";
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    case "array":
    case "arraycomprehension":
      return "array";
    case "object":
    case "objectcomprehension":
      return "object";
    case "set":
    case "setcomprehension":
      return "set";
    default:
      return null;
  }
}

/** Calls the planner turns into statements itself: they need no backend implementation. */
export const PLANNED = new Set(["eq", "assign", "equal", "neq", "print"]);

export class TypeChecker {
  readonly used = new Set<string>();

  constructor(
    private readonly functionArity: (path: readonly string[]) => number | null,
    private readonly errors: Diagnostic[],
    /** The backend's builtins and those a `with` replaces; null: every declared builtin is callable. */
    private readonly backend: { readonly supported: ReadonlySet<string>; readonly mocked: ReadonlySet<string> } | null = null,
  ) {}

  /** `env`: types of locals known before the body (copied, never changed). */
  body(b: Body, env: ReadonlyMap<string, ValueType> = new Map()): void {
    const local = new Map(env);
    for (const e of b) this.expr(e, local);
  }

  private typeOf(t: Term, env: ReadonlyMap<string, ValueType>): ValueType | null {
    return t.type === "var" ? env.get(t.name) ?? null : literalType(t);
  }

  /** Records what an expression settles about the types of the vars it binds. */
  private learn(e: CallExpr, env: Map<string, ValueType>): void {
    if (e.operator.length === 1 && e.operator[0] === "eq") {
      const [a, b] = e.args as [Term, Term];
      const ta = this.typeOf(a, env);
      const tb = this.typeOf(b, env);
      if (a.type === "var" && ta === null && tb !== null) env.set(a.name, tb);
      if (b.type === "var" && tb === null && ta !== null) env.set(b.name, ta);
      return;
    }
    if (e.operator[0] === "data") return;
    const sig = lookupBuiltin(e.operator.join("."));
    if (sig === undefined || sig.variadic === true || sig.result === null || e.args.length !== sig.args.length + 1) return;
    const out = e.args[e.args.length - 1] as Term;
    const r = sig.result;
    if (out.type === "var" && r.length === 1 && r[0] !== "any" && !env.has(out.name)) env.set(out.name, r[0] as ValueType);
  }

  terms(ts: readonly (Term | null)[]): void {
    for (const t of ts) if (t !== null) this.term(t, new Map());
  }

  private term(t: Term, env: ReadonlyMap<string, ValueType>): void {
    switch (t.type) {
      case "arraycomprehension":
      case "setcomprehension":
      case "objectcomprehension":
        this.body(t.body, env);
        return;
      case "array":
      case "set":
        t.items.forEach((i) => this.term(i, env));
        return;
      case "object":
        for (const [k, v] of t.items) {
          this.term(k, env);
          this.term(v, env);
        }
        return;
      case "ref":
        this.term(t.head, env);
        t.path.forEach((p) => this.term(p, env));
        return;
      default:
        return;
    }
  }

  private expr(e: Expr, env: Map<string, ValueType>): void {
    for (const w of e.with) this.term(w.value, env);
    switch (e.type) {
      case "callexpr":
        this.call(e, env);
        e.args.forEach((a) => this.term(a, env));
        this.learn(e, env);
        return;
      case "termexpr":
        this.term(e.term, env);
        return;
      case "every":
        this.term(e.domain, env);
        this.body(e.body, env);
        return;
      case "not":
        this.body(e.body, env);
        return;
      default:
        return;
    }
  }

  /**
   * A literal template of strings.render_template using a Go template action the
   * host implementation lacks (`define`, `template`, `block`) is reported here, at
   * the call, instead of failing every evaluation that reaches it.
   */
  private templateActions(e: CallExpr): void {
    const t = e.args[0];
    if (t === undefined || t.type !== "string") return;
    try {
      parseTemplate(t.value);
    } catch (err) {
      const m = /\{\{(define|template|block)\}\} is not supported/.exec(err instanceof Error ? err.message : "");
      if (m === null) return; // other template errors are the builtin's own, at evaluation (as in OPA)
      this.errors.push({ code: "rego_type_error", message: `strings.render_template: template action {{${m[1]}}} is not supported yet`, location: e.location, hint: "inline the named template: only text, fields, variables, pipelines, functions and if / range / with are supported" });
    }
  }

  private call(e: CallExpr, env: ReadonlyMap<string, ValueType>): void {
    const n = e.args.length;
    if (e.operator[0] === "data") {
      const arity = this.functionArity(e.operator);
      if (arity !== null && n !== arity && n !== arity + 1) {
        this.errors.push({ code: "rego_type_error", message: `${e.operator.join(".")}: arity mismatch: have ${n} arguments, want ${arity}`, location: e.location });
      }
      return;
    }
    const name = e.operator.join(".");
    const sig = lookupBuiltin(name);
    if (sig === undefined) return; // reported as undefined function by the scoper
    this.used.add(name);
    if (this.backend !== null && !PLANNED.has(name) && !this.backend.supported.has(name) && !this.backend.mocked.has(name)) {
      this.errors.push({ code: "rego_type_error", message: `OPA builtin ${name} is not supported yet`, location: e.location });
      return;
    }
    if (name === "strings.render_template") this.templateActions(e);
    if (sig.variadic === true) return;
    const arity = sig.args.length;
    // Infix builtins used as top-level expressions have no output; eq/assign never do.
    const maxArgs = name === "eq" || name === "assign" ? arity : arity + 1;
    if (n < arity || n > maxArgs) {
      const shown = sig.infix !== undefined ? `${name} (${sig.infix})` : name;
      this.errors.push({ code: "rego_type_error", message: `${shown}: arity mismatch: have ${n} arguments, want ${arity}`, location: e.location });
      return;
    }
    const bad: number[] = [];
    sig.args.forEach((want, i) => {
      const have = this.typeOf(e.args[i] as Term, env);
      if (have !== null && !want.includes("any") && !want.includes(have)) bad.push(i);
    });
    if (bad.length > 0) {
      const have = sig.args.map((_, i) => this.typeOf(e.args[i] as Term, env) ?? "any").join(", ");
      const want = sig.args.map((w) => w.join("|")).join(", ");
      this.errors.push({ code: "rego_type_error", message: `${name}: invalid argument(s): have (${have}), want (${want})`, location: e.location });
    }
  }
}
