/**
 * Coverage points of the source (for `toolgate test --coverage`): one `expr` point
 * per expression of every rule, else, function, comprehension and `every` body, one
 * `head` point per rule, else clause and default rule (hit when the default is used). Keyed by AST node identity,
 * so re-planning a rule (under `with` mocks) hits the same points.
 */
import type { Body, ElseClause, Expr, Module, Rule, Term } from "../rego/ast.js";

export interface CoveragePoint {
  readonly file: string;
  readonly row: number;
  readonly kind: "expr" | "head";
}

export interface CoverageMap {
  readonly points: CoveragePoint[];
  readonly exprs: Map<Expr, number>;
  readonly heads: Map<Rule | ElseClause, number>;
}

export function coverageMap(modules: readonly Module[]): CoverageMap {
  const map: CoverageMap = { points: [], exprs: new Map(), heads: new Map() };
  for (const m of modules) {
    const add = (row: number, kind: CoveragePoint["kind"]): number => map.points.push({ file: m.file, row, kind }) - 1;
    const term = (t: Term): void => {
      switch (t.type) {
        case "arraycomprehension":
        case "setcomprehension":
        case "objectcomprehension":
          body(t.body);
          return;
        case "ref":
          term(t.head);
          t.path.forEach(term);
          return;
        case "array":
        case "set":
          t.items.forEach(term);
          return;
        case "object":
          t.items.forEach(([k, v]) => (term(k), term(v)));
          return;
        case "call":
          t.args.forEach(term);
          return;
        default:
          return;
      }
    };
    const body = (b: Body): void => {
      for (const e of b) {
        map.exprs.set(e, add(e.location.row, "expr"));
        switch (e.type) {
          case "termexpr": term(e.term); break;
          case "callexpr": e.args.forEach(term); break;
          case "somein": term(e.domain); break;
          case "every": term(e.domain); body(e.body); break;
          case "some": break;
        }
      }
    };
    for (const r of m.rules) {
      map.heads.set(r, add(r.head.location.row, "head"));
      if (!r.default) body(r.body); // a default rule's body is never evaluated
      for (let e = r.else; e !== null; e = e.else) {
        map.heads.set(e, add(e.location.row, "head"));
        body(e.body);
      }
    }
  }
  return map;
}
