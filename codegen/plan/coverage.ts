/**
 * Coverage points of the checked program (for `toolgate test --coverage`): one
 * `expr` point per expression of every rule, else, function, comprehension, `not`
 * and `every` body, one `head` point per rule, else clause and default rule (hit
 * when the default is used). Keyed by node identity, so re-planning a rule (under
 * `with` mocks) hits the same points. Rules come in source order (files in input
 * order), each head before its body.
 */
import type { Body, ElseClause, Expr, Term } from "../rego/ast.js";
import type { CompiledRule, Program } from "../rego/program.js";

export interface CoveragePoint {
  readonly file: string;
  readonly row: number;
  readonly kind: "expr" | "head";
}

export interface CoverageMap {
  readonly points: CoveragePoint[];
  readonly exprs: Map<Expr, number>;
  readonly heads: Map<CompiledRule | ElseClause, number>;
}

export function coverageMap(program: Program, files: readonly string[]): CoverageMap {
  const map: CoverageMap = { points: [], exprs: new Map(), heads: new Map() };
  const fileOrder = new Map(files.map((f, i) => [f, i]));
  const rules = program.groups.flatMap((g) => [...g.rules, ...(g.default === null ? [] : [g.default])]);
  rules.sort((a, b) => (fileOrder.get(a.file) ?? 0) - (fileOrder.get(b.file) ?? 0) || a.location.row - b.location.row || a.location.col - b.location.col);
  for (const r of rules) {
    const add = (row: number, kind: CoveragePoint["kind"]): number => map.points.push({ file: r.file, row, kind }) - 1;
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
          case "every": body(e.body); break;
          case "not": body(e.body); break;
          default: break;
        }
      }
    };
    map.heads.set(r, add(r.location.row, "head"));
    if (!r.default) body(r.body); // a default rule's body is never evaluated
    for (let e = r.else; e !== null; e = e.else) {
      map.heads.set(e, add(e.location.row, "head"));
      body(e.body);
    }
  }
  return map;
}
