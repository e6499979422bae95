/**
 * Type check of calls in compiled bodies: arity of builtins and functions, and
 * argument types where the argument is a literal (its type is settled).
 * Reports `rego_type_error`. Runs on flattened bodies, where a call may carry
 * one trailing output argument.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, CallExpr, Expr, Term } from "./ast.js";
import { lookupBuiltin, type ValueType } from "./builtins.js";

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

export class TypeChecker {
  readonly used = new Set<string>();

  constructor(
    private readonly functionArity: (path: readonly string[]) => number | null,
    private readonly errors: Diagnostic[],
  ) {}

  body(b: Body): void {
    for (const e of b) this.expr(e);
  }

  terms(ts: readonly (Term | null)[]): void {
    for (const t of ts) if (t !== null) this.term(t);
  }

  private term(t: Term): void {
    switch (t.type) {
      case "arraycomprehension":
      case "setcomprehension":
        this.body(t.body);
        return;
      case "objectcomprehension":
        this.body(t.body);
        return;
      case "array":
      case "set":
        t.items.forEach((i) => this.term(i));
        return;
      case "object":
        for (const [k, v] of t.items) {
          this.term(k);
          this.term(v);
        }
        return;
      case "ref":
        this.term(t.head);
        t.path.forEach((p) => this.term(p));
        return;
      default:
        return;
    }
  }

  private expr(e: Expr): void {
    for (const w of e.with) this.term(w.value);
    switch (e.type) {
      case "callexpr":
        this.call(e);
        e.args.forEach((a) => this.term(a));
        return;
      case "termexpr":
        this.term(e.term);
        return;
      case "every":
        this.term(e.domain);
        this.body(e.body);
        return;
      case "not":
        this.body(e.body);
        return;
      default:
        return;
    }
  }

  private call(e: CallExpr): void {
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
      const have = literalType(e.args[i] as Term);
      if (have !== null && !want.includes("any") && !want.includes(have)) bad.push(i);
    });
    if (bad.length > 0) {
      const have = sig.args.map((_, i) => literalType(e.args[i] as Term) ?? "any").join(", ");
      const want = sig.args.map((w) => w.join("|")).join(", ");
      this.errors.push({ code: "rego_type_error", message: `${name}: invalid argument(s): have (${have}), want (${want})`, location: e.location });
    }
  }
}
