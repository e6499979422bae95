/**
 * Zero-argument functions (`f() := v`, common in pre-1.0 policies) are rules: the
 * parser reads their heads as value rules, and this pass turns every `f()` call that
 * names such a rule (package-relative, through an import, or as `data.`) into a
 * reference to it, so that `f()` and `f` mean the same document, as in OPA.
 */
import type { Body, ElseClause, Expr, Module, Rule, Term } from "./ast.js";

export function zeroArityCallsToRefs(modules: readonly Module[]): Module[] {
  const valueRules = new Set<string>();
  const functions = new Set<string>();
  for (const m of modules) {
    for (const r of m.rules) {
      const first = r.head.ref[0];
      if (first === undefined || first.type !== "var") continue;
      const rest = r.head.ref.slice(1);
      if (!rest.every((t) => t.type === "string")) continue;
      const path = [...m.package.path, first.name, ...rest.map((t) => (t.type === "string" ? t.value : ""))].join(".");
      (r.head.kind === "function" ? functions : valueRules).add(path);
    }
  }
  if (valueRules.size === 0) return [...modules];
  return modules.map((m) => rewriteModule(m, valueRules, functions));
}

function rewriteModule(m: Module, valueRules: ReadonlySet<string>, functions: ReadonlySet<string>): Module {
  const aliases = new Map<string, readonly string[]>();
  for (const imp of m.imports) if (imp.path[0] === "data") aliases.set(imp.alias ?? imp.path[imp.path.length - 1]!, imp.path);
  const absolute = (op: readonly string[]): string | null => {
    const [first, ...rest] = op as [string, ...string[]];
    let path: readonly string[];
    if (first === "data") path = op;
    else if (aliases.has(first)) path = [...aliases.get(first)!, ...rest];
    else path = [...m.package.path, ...op];
    const key = path.join(".");
    return valueRules.has(key) && !functions.has(key) ? key : null;
  };
  let changed = false;
  const term = (t: Term): Term => {
    switch (t.type) {
      case "call": {
        const args = t.args.map(term);
        if (args.length === 0 && absolute(t.operator) !== null) {
          changed = true;
          const [head, ...rest] = t.operator as [string, ...string[]];
          return { type: "ref", head: { type: "var", name: head, location: t.location }, path: rest.map((value) => ({ type: "string", value, location: t.location })), location: t.location };
        }
        return { ...t, args };
      }
      case "ref":
        return { ...t, head: term(t.head), path: t.path.map(term) };
      case "array":
      case "set":
        return { ...t, items: t.items.map(term) };
      case "object":
        return { ...t, items: t.items.map(([k, v]) => [term(k), term(v)] as const) };
      case "arraycomprehension":
      case "setcomprehension":
        return { ...t, term: term(t.term), body: body(t.body) };
      case "objectcomprehension":
        return { ...t, key: term(t.key), value: term(t.value), body: body(t.body) };
      default:
        return t;
    }
  };
  const expr = (e: Expr): Expr => {
    const w = e.with.map((x) => ({ ...x, value: term(x.value) }));
    switch (e.type) {
      case "termexpr":
        return { ...e, with: w, term: term(e.term) };
      case "callexpr":
        if (e.args.length === 0 && absolute(e.operator) !== null) {
          changed = true;
          const [head, ...rest] = e.operator as [string, ...string[]];
          const ref: Term = { type: "ref", head: { type: "var", name: head, location: e.location }, path: rest.map((value) => ({ type: "string", value, location: e.location })), location: e.location };
          return { type: "termexpr", term: ref, negated: e.negated, with: w, location: e.location };
        }
        return { ...e, with: w, args: e.args.map(term) };
      case "somein":
        return { ...e, with: w, domain: term(e.domain) };
      case "every":
        return { ...e, with: w, domain: term(e.domain), body: body(e.body) };
      case "not":
        return { ...e, with: w, body: body(e.body) };
      default:
        return { ...e, with: w };
    }
  };
  const body = (b: Body): Body => b.map(expr);
  const elseClause = (e: ElseClause | null): ElseClause | null => (e === null ? null : { ...e, value: term(e.value), body: body(e.body), else: elseClause(e.else) });
  const rule = (r: Rule): Rule => {
    const h = r.head;
    const head = h.kind === "contains" ? { ...h, key: term(h.key) } : { ...h, value: term(h.value) };
    return { ...r, head, body: body(r.body), else: elseClause(r.else) };
  };
  const rules = m.rules.map(rule);
  return changed ? { ...m, rules } : m;
}
