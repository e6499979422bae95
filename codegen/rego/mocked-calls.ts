/**
 * Calls of a builtin the backend lacks but some `with` replaces: each such call is an
 * error unless every way of reaching it runs under a `with` that replaces that builtin.
 * Reachability follows what the planner plans: the entrypoints and queries when
 * given, else every rule of the program (not functions on their own), then the rules and functions their bodies, heads and else
 * clauses reach, each under the `with` modifiers in force. A `with` on an expression
 * covers everything that expression evaluates; a replaced document or function is not
 * evaluated at all (its replacement is, without the function replacements in force,
 * as OPA: "a mock will not call another mock").
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, Expr, Term, WithModifier } from "./ast.js";
import type { CompiledRule, RuleGroup } from "./program.js";

interface Mocks {
  /** Builtin names replaced in this context. */
  readonly builtins: ReadonlySet<string>;
  /** Absolute data paths (documents or functions) replaced in this context. */
  readonly paths: readonly (readonly string[])[];
}

const NONE: Mocks = { builtins: new Set(), paths: [] };

function keyOf(m: Mocks): string {
  return `${[...m.builtins].sort().join(",")}|${m.paths.map((p) => p.join(".")).sort().join(",")}`;
}

/** The dotted name of a `with` target: a builtin name, or null for data/input targets. */
function targetPath(w: WithModifier): { readonly builtin: string } | { readonly path: readonly string[] } | null {
  const t = w.target;
  if (t.type !== "ref" || t.head.type !== "var" || t.head.name === "input") return null;
  const segs = t.path.map((p) => (p.type === "string" ? p.value : null));
  if (segs.some((s) => s === null)) return null;
  if (t.head.name === "data") return { path: ["data", ...(segs as string[])] };
  return { builtin: [t.head.name, ...(segs as string[])].join(".") };
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
}

/** Where evaluation starts: entrypoint paths (`["data", "pkg", "rule"]`) and query bodies (absolute refs). */
export interface Entrypoints {
  readonly paths: readonly (readonly string[])[];
  readonly queries: readonly Body[];
}

export function checkMockedCalls(groups: readonly RuleGroup[], candidates: ReadonlySet<string>, errors: Diagnostic[], from?: Entrypoints): void {
  if (candidates.size === 0) return;
  new Reach(groups, candidates, errors).run(from);
}

class Reach {
  private readonly seen = new Set<string>();
  private readonly reported = new Set<string>();
  private readonly byPath = new Map<string, number>();

  constructor(
    private readonly groups: readonly RuleGroup[],
    private readonly candidates: ReadonlySet<string>,
    private readonly errors: Diagnostic[],
  ) {
    groups.forEach((g, i) => this.byPath.set(g.path.join("."), i));
  }

  run(from: Entrypoints | undefined): void {
    if (from === undefined) {
      this.groups.forEach((g, i) => {
        if (g.kind !== "function") this.visit(i, NONE);
      });
      return;
    }
    for (const p of from.paths) this.reads(p, NONE);
    for (const q of from.queries) this.body(q, NONE);
  }

  private visit(i: number, m: Mocks): void {
    const key = `${i}#${keyOf(m)}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const g = this.groups[i]!;
    for (const r of g.default === null ? g.rules : [...g.rules, g.default]) this.rule(r, m);
  }

  private rule(r: CompiledRule, m: Mocks): void {
    this.body(r.body, m);
    for (const t of [r.value, r.key, ...r.refTail]) if (t !== null) this.term(t, m);
    for (let e = r.else; e !== null; e = e.else) {
      this.body(e.body, m);
      this.term(e.value, m);
    }
  }

  /** Groups a data path reads: the rule at or above it, and every rule below it. */
  private reads(path: readonly (string | null)[], m: Mocks): void {
    this.groups.forEach((g, i) => {
      const n = Math.min(g.path.length, path.length);
      for (let k = 0; k < n; k++) if (path[k] !== null && path[k] !== g.path[k]) return;
      if (m.paths.some((p) => startsWith(g.path, p))) return; // replaced: never evaluated
      this.visit(i, m);
    });
  }

  private body(b: Body, m: Mocks): void {
    for (const e of b) this.expr(e, m);
  }

  private withMocks(e: Expr, m: Mocks): Mocks {
    if (e.with.length === 0) return m;
    const builtins = new Set(m.builtins);
    const paths = [...m.paths];
    for (const w of e.with) {
      const t = targetPath(w);
      if (t === null) continue;
      if ("builtin" in t) builtins.add(t.builtin);
      else paths.push(t.path);
    }
    return { builtins, paths };
  }

  private expr(e: Expr, outer: Mocks): void {
    const m = this.withMocks(e, outer);
    for (const w of e.with) this.replacement(w, outer);
    switch (e.type) {
      case "callexpr":
        this.call(e.operator, e.location, m);
        for (const a of e.args) this.term(a, m);
        return;
      case "termexpr":
        this.term(e.term, m);
        return;
      case "somein":
        this.term(e.domain, m);
        return;
      case "every":
        this.term(e.domain, m);
        this.body(e.body, m);
        return;
      case "not":
        this.body(e.body, m);
        return;
      default:
        return;
    }
  }

  /** A `with` value: a replacing function runs without the function replacements in force. */
  private replacement(w: WithModifier, outer: Mocks): void {
    const v = w.value;
    const i = v.type === "ref" && v.head.type === "var" && v.head.name === "data" ? this.byPath.get(["data", ...v.path.map((p) => (p.type === "string" ? p.value : "?"))].join(".")) : undefined;
    if (i === undefined || this.groups[i]!.kind !== "function") {
      this.term(v, outer);
      return;
    }
    this.visit(i, { builtins: new Set(), paths: outer.paths.filter((p) => !this.isFunction(p)) });
  }

  private isFunction(path: readonly string[]): boolean {
    const i = this.byPath.get(path.join("."));
    return i !== undefined && this.groups[i]!.kind === "function";
  }

  private call(op: readonly string[], location: Expr["location"], m: Mocks): void {
    if (op[0] === "data") {
      if (m.paths.some((p) => startsWith(op, p))) return;
      this.reads(op, m);
      return;
    }
    const name = op.join(".");
    if (!this.candidates.has(name) || m.builtins.has(name)) return;
    const key = `${location.file}:${location.row}:${location.col}:${name}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.errors.push({ code: "rego_type_error", message: `OPA builtin ${name} is not supported yet`, location });
  }

  private term(t: Term, m: Mocks): void {
    switch (t.type) {
      case "ref":
        if (t.head.type === "var" && t.head.name === "data") this.reads(["data", ...t.path.map((p) => (p.type === "string" ? p.value : null))], m);
        this.term(t.head, m);
        for (const p of t.path) this.term(p, m);
        return;
      case "array":
      case "set":
        for (const x of t.items) this.term(x, m);
        return;
      case "object":
        for (const [k, v] of t.items) {
          this.term(k, m);
          this.term(v, m);
        }
        return;
      case "call":
        this.call(t.operator, t.location, m);
        for (const x of t.args) this.term(x, m);
        return;
      case "arraycomprehension":
      case "setcomprehension":
        this.term(t.term, m);
        this.body(t.body, m);
        return;
      case "objectcomprehension":
        this.term(t.key, m);
        this.term(t.value, m);
        this.body(t.body, m);
        return;
      default:
        return;
    }
  }
}
