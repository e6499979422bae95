/**
 * The program contract the planner relies on (README "Program"), checked on
 * every conformance case that compiles: flat calls, one comprehension shape,
 * no sugar left, heads of locals and constants, every local bound before use.
 */
import { describe, expect, it } from "vitest";
import type { Body, Expr, Term } from "../../codegen/rego/ast.js";
import { compileModules, lookupBuiltin, type Program } from "../../codegen/rego/index.js";
import { loadConformanceCases } from "../helpers/conformance-modules.js";
import { itConformance } from "../helpers/conformance.js";

const LOCAL = /^__local\d+__$/;

class Checker {
  readonly problems: string[] = [];
  constructor(private readonly program: Program, private readonly where: string) {}

  private fail(msg: string): void {
    if (this.problems.length < 5) this.problems.push(`${this.where}: ${msg}`);
  }

  private arity(op: readonly string[]): number | null {
    if (op[0] === "data") return this.program.groups.find((g) => g.path.join(".") === op.join("."))?.arity ?? null;
    const b = lookupBuiltin(op.join("."));
    return b === undefined || b.variadic === true ? null : b.args.length;
  }

  /** Vars of a term at this level (comprehensions: their captures); fails on calls. */
  termVars(t: Term, out: Set<string>, allowCompr: boolean): void {
    switch (t.type) {
      case "var":
        if (!LOCAL.test(t.name)) this.fail(`non-local var ${t.name} outside a ref head`);
        out.add(t.name);
        return;
      case "ref":
        if (t.head.type === "var" && !LOCAL.test(t.head.name)) {
          if (t.head.name !== "data" && t.head.name !== "input") this.fail(`ref head ${t.head.name}`);
        } else this.termVars(t.head, out, false);
        for (const p of t.path) this.termVars(p, out, false);
        return;
      case "array":
      case "set":
        for (const i of t.items) this.termVars(i, out, false);
        return;
      case "object":
        for (const [k, v] of t.items) {
          this.termVars(k, out, false);
          this.termVars(v, out, false);
        }
        return;
      case "call":
        this.fail(`nested call ${t.operator.join(".")}`);
        return;
      case "arraycomprehension":
      case "setcomprehension":
      case "objectcomprehension":
        if (!allowCompr) this.fail("comprehension outside eq(var, comprehension)");
        for (const c of t.captures ?? []) out.add(c);
        return;
      default:
        return;
    }
  }

  body(b: Body, boundIn: ReadonlySet<string>): Set<string> {
    const bound = new Set(boundIn);
    for (const e of b) this.expr(e, bound);
    return bound;
  }

  private expr(e: Expr, bound: Set<string>): void {
    if (e.negated) this.fail("negated expression left");
    if (e.binds === undefined) this.fail(`${e.type} without binds`);
    const used = new Set<string>();
    for (const w of e.with) {
      const isFn = !(w.target.type === "ref" && w.target.head.type === "var" && (w.target.head.name === "input" || w.target.head.name === "data") && this.arity(w.target.type === "ref" ? [w.target.head.name, ...w.target.path.map((p) => (p.type === "string" ? p.value : "?"))] : []) === null);
      if (!(isFn && w.value.type === "ref")) this.termVars(w.value, used, false);
    }
    switch (e.type) {
      case "some":
      case "somein":
        this.fail(`${e.type} left`);
        return;
      case "termexpr":
        this.termVars(e.term, used, false);
        break;
      case "callexpr": {
        if (e.operator[0] === "assign") this.fail("assign left");
        const isEq = e.operator.length === 1 && e.operator[0] === "eq";
        e.args.forEach((a, i) => this.termVars(a, used, isEq && i === 1 && e.args[0]?.type === "var"));
        const arity = this.arity(e.operator);
        if (arity !== null && e.args.length === arity + 1 && e.args[arity]?.type !== "var") this.fail("call output is not a var");
        for (const a of e.args) {
          if (a.type === "arraycomprehension" || a.type === "setcomprehension") this.body(a.body, bound);
          if (a.type === "objectcomprehension") this.body(a.body, bound);
        }
        break;
      }
      case "every":
        if (e.key === null) this.fail("every without key");
        this.termVars(e.domain, used, false);
        for (const c of e.captures ?? []) used.add(c);
        this.body(e.body, new Set([...bound, ...[e.key, e.value].flatMap((t) => (t !== null && t.type === "var" ? [t.name] : []))]));
        break;
      case "not":
        for (const c of e.captures ?? []) used.add(c);
        this.body(e.body, bound);
        break;
    }
    const binds = new Set(e.binds ?? []);
    for (const v of used) if (!bound.has(v) && !binds.has(v)) this.fail(`${v} read before it is bound`);
    for (const v of binds) bound.add(v);
  }

  head(terms: readonly (Term | null)[], bound: ReadonlySet<string>): void {
    for (const t of terms) {
      if (t === null) continue;
      const vs = new Set<string>();
      this.termVars(t, vs, false);
      if (JSON.stringify(t).includes('"type":"ref"')) this.fail("ref in a rule head");
      for (const v of vs) if (!bound.has(v)) this.fail(`head var ${v} unbound`);
    }
  }
}

describe("compiled program invariants", () => {
  itConformance("hold for every conformance case that compiles", () => {
    const problems: string[] = [];
    let checked = 0;
    for (const c of loadConformanceCases()) {
      if (c.modules.length === 0) continue;
      const r = compileModules(c.modules);
      if (r.program === null) continue;
      checked++;
      const k = new Checker(r.program, c.note);
      for (const g of r.program.groups) {
        for (const rule of [...g.rules, ...(g.default === null ? [] : [g.default])]) {
          if (g.kind === "function" && new Set(rule.args.map((a) => (a.type === "var" ? a.name : "?"))).size !== rule.args.length) k.problems.push(`${c.note}: function args not distinct vars`);
          const args = new Set(rule.args.flatMap((a) => (a.type === "var" ? [a.name] : [])));
          k.head([rule.value, rule.key, ...rule.refTail], k.body(rule.body, args));
          for (let e = rule.else; e !== null; e = e.else) k.head([e.value], k.body(e.body, args));
        }
      }
      problems.push(...k.problems);
    }
    expect(checked).toBeGreaterThan(700);
    expect(problems).toEqual([]);
  });

  it("the checker itself notices broken programs (stopped before safety)", () => {
    const r = compileModules([{ file: "t.rego", source: "package t\np := y if { y = count(x); x = [1] }" }], { stopAfter: "flatten" });
    const k = new Checker(r.program!, "t");
    const g = r.program!.groups[0]!;
    k.body(g.rules[0]!.body, new Set());
    expect(k.problems.some((p) => p.includes("without binds"))).toBe(true);
    expect(k.problems.some((p) => p.includes("read before it is bound"))).toBe(true);
  });
});
