/**
 * Rewrites a test body so it stands alone as a query: names of the test package's
 * rules and import aliases become full `data.` references (a query has no package
 * and no imports). Local variables are left alone.
 */
import type { Body, Expr, Location, Module, Term, WithModifier } from "../rego/ast.js";

export interface Scope {
  /** Bare name -> the path it stands for (`authz` -> ["data","toolgate","authz"]). */
  readonly names: ReadonlyMap<string, readonly string[]>;
}

/** Rules of the package (from every module of that package) and the module's imports. */
export function scopeOf(module: Module, samePackage: readonly Module[]): Scope {
  const names = new Map<string, readonly string[]>();
  const pkg = module.package.path;
  for (const m of samePackage) {
    for (const r of m.rules) {
      const head = r.head.ref[0];
      if (head?.type === "var") names.set(head.name, [...pkg, head.name]);
    }
  }
  for (const imp of module.imports) {
    const alias = imp.alias ?? imp.path[imp.path.length - 1];
    if (alias !== undefined && imp.path.length > 1) names.set(alias, imp.path);
  }
  return { names };
}

/** Names the body binds itself (`x := ...`, `some x`, ...) shadow rule names. */
function localNames(body: Body): Set<string> {
  const out = new Set<string>();
  const addVars = (t: Term | null): void => {
    if (t === null) return;
    if (t.type === "var") out.add(t.name);
    if (t.type === "array") t.items.forEach(addVars);
  };
  for (const e of body) {
    if (e.type === "callexpr" && e.operator[0] === "assign") addVars(e.args[0] ?? null);
    if (e.type === "some") e.vars.forEach((v) => out.add(v.name));
    if (e.type === "somein" || e.type === "every") {
      addVars(e.key);
      addVars(e.value);
    }
  }
  return out;
}

export function qualifyBody(body: Body, scope: Scope): Body {
  const locals = localNames(body);
  const lookup = (name: string): readonly string[] | undefined => (locals.has(name) ? undefined : scope.names.get(name));
  const pathRef = (path: readonly string[], location: Location): Term => ({
    type: "ref",
    head: { type: "var", name: path[0]!, location },
    path: path.slice(1).map((s) => ({ type: "string", value: s, location })),
    location,
  });
  const term = (t: Term): Term => {
    switch (t.type) {
      case "var": {
        const p = lookup(t.name);
        return p === undefined ? t : pathRef(p, t.location);
      }
      case "ref": {
        const path = t.path.map(term);
        if (t.head.type === "var") {
          const p = lookup(t.head.name);
          if (p !== undefined) {
            const q = pathRef(p, t.head.location) as Extract<Term, { type: "ref" }>;
            return { ...t, head: q.head, path: [...q.path, ...path] };
          }
        }
        return { ...t, head: term(t.head), path };
      }
      case "array":
      case "set":
        return { ...t, items: t.items.map(term) };
      case "object":
        return { ...t, items: t.items.map(([k, v]) => [term(k), term(v)] as const) };
      case "call":
        return { ...t, operator: operator(t.operator), args: t.args.map(term) };
      case "arraycomprehension":
      case "setcomprehension":
        return { ...t, term: term(t.term), body: qualifyBody(t.body, scope) };
      case "objectcomprehension":
        return { ...t, key: term(t.key), value: term(t.value), body: qualifyBody(t.body, scope) };
      default:
        return t;
    }
  };
  const operator = (op: readonly string[]): readonly string[] => {
    const p = op[0] === undefined ? undefined : lookup(op[0]);
    return p === undefined ? op : [...p, ...op.slice(1)];
  };
  const withMod = (w: WithModifier): WithModifier => ({ ...w, target: term(w.target) as WithModifier["target"], value: term(w.value) });
  const expr = (e: Expr): Expr => {
    const withs = e.with.map(withMod);
    switch (e.type) {
      case "termexpr":
        return { ...e, with: withs, term: term(e.term) };
      case "callexpr":
        return { ...e, with: withs, operator: operator(e.operator), args: e.args.map(term) };
      case "some":
        return { ...e, with: withs };
      case "somein":
        return { ...e, with: withs, domain: term(e.domain) };
      case "every":
        return { ...e, with: withs, domain: term(e.domain), body: qualifyBody(e.body, scope) };
      default:
        return e;
    }
  };
  return body.map(expr);
}
