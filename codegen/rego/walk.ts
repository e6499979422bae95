/** Small generic helpers over terms and bodies: variable collection and term mapping. */
import type { Body, Expr, Term } from "./ast.js";

/** Calls `f` on every var name in `t`, not descending into comprehension bodies unless `deep`. */
export function forEachVar(t: Term, f: (name: string, t: Term) => void, deep = false): void {
  switch (t.type) {
    case "var":
      f(t.name, t);
      return;
    case "ref":
      forEachVar(t.head, f, deep);
      for (const p of t.path) forEachVar(p, f, deep);
      return;
    case "array":
    case "set":
      for (const i of t.items) forEachVar(i, f, deep);
      return;
    case "object":
      for (const [k, v] of t.items) {
        forEachVar(k, f, deep);
        forEachVar(v, f, deep);
      }
      return;
    case "call":
      for (const a of t.args) forEachVar(a, f, deep);
      return;
    case "arraycomprehension":
    case "setcomprehension":
      if (deep) {
        forEachVar(t.term, f, deep);
        forEachVarInBody(t.body, f);
      } else for (const c of t.captures ?? []) f(c, t);
      return;
    case "objectcomprehension":
      if (deep) {
        forEachVar(t.key, f, deep);
        forEachVar(t.value, f, deep);
        forEachVarInBody(t.body, f);
      } else for (const c of t.captures ?? []) f(c, t);
      return;
    default:
      return;
  }
}

export function forEachVarInBody(body: Body, f: (name: string, t: Term) => void): void {
  for (const e of body) forEachVarInExpr(e, f, true);
}

export function forEachVarInExpr(e: Expr, f: (name: string, t: Term) => void, deep: boolean): void {
  for (const w of e.with) {
    forEachVar(w.target, f, deep);
    forEachVar(w.value, f, deep);
  }
  switch (e.type) {
    case "termexpr":
      forEachVar(e.term, f, deep);
      return;
    case "callexpr":
      for (const a of e.args) forEachVar(a, f, deep);
      return;
    case "some":
      for (const v of e.vars) f(v.name, v);
      return;
    case "somein":
      if (e.key !== null) forEachVar(e.key, f, deep);
      forEachVar(e.value, f, deep);
      forEachVar(e.domain, f, deep);
      return;
    case "every":
      if (deep) {
        if (e.key !== null) forEachVar(e.key, f, deep);
        forEachVar(e.value, f, deep);
        forEachVar(e.domain, f, deep);
        forEachVarInBody(e.body, f);
      } else {
        forEachVar(e.domain, f, deep);
        for (const c of e.captures ?? []) f(c, e.domain);
      }
      return;
    case "not":
      if (deep) forEachVarInBody(e.body, f);
      else for (const c of e.captures ?? []) f(c, e.body[0]?.type === "termexpr" ? e.body[0].term : { type: "null", location: e.location });
      return;
  }
}

export function varsOfTerm(t: Term, deep = false): Set<string> {
  const out = new Set<string>();
  forEachVar(t, (n) => out.add(n), deep);
  return out;
}

/** True when `t` contains no vars, refs, calls or comprehensions. */
export function isGround(t: Term): boolean {
  switch (t.type) {
    case "null":
    case "boolean":
    case "number":
    case "string":
      return true;
    case "array":
    case "set":
      return t.items.every(isGround);
    case "object":
      return t.items.every(([k, v]) => isGround(k) && isGround(v));
    default:
      return false;
  }
}
