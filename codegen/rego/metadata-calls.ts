/**
 * `rego.metadata.rule()` and `rego.metadata.chain()` are constants per rule, so
 * every call is replaced by its value before names are resolved (OPA's compiler
 * does the same, `rewriteRegoMetadataCalls`):
 *
 * - `rule()`: the rule-scope annotation declared closest above the rule, or `{}`;
 * - `chain()`: `[{path, annotations}]` — the rule's own entries (closest block
 *   first; one entry without `annotations` when it has none), then the `document`
 *   scope entry for the rule's path, the `package` scope entry of its package, and
 *   the `subpackages` entries from the closest package outwards. Paths leave out
 *   the leading `data`. Package annotations may sit in any file of the package.
 *
 * An `else` shares its rule's metadata.
 */
import type { Annotation, Body, ElseClause, Expr, JsonValue, Location, Module, Rule, Term } from "./ast.js";

const RULE = "rego.metadata.rule";
const CHAIN = "rego.metadata.chain";

export function rewriteMetadataCalls(modules: readonly Module[]): Module[] {
  if (!modules.some(callsMetadata)) return [...modules];
  const index = new AnnotationIndex(modules);
  return modules.map((m) => (callsMetadata(m) ? { ...m, rules: m.rules.map((r, i) => rewriteRule(r, () => index.values(m, i))) } : m));
}

interface Values {
  readonly rule: JsonValue;
  readonly chain: JsonValue;
}

class AnnotationIndex {
  private readonly byPackage = new Map<string, Annotation>();
  private readonly subpackages = new Map<string, Annotation[]>();
  private readonly byDocument = new Map<string, Annotation>();

  constructor(modules: readonly Module[]) {
    for (const m of modules) {
      const pkg = key(m.package.path);
      for (const a of m.annotations ?? []) {
        if (a.scope === "package" && !this.byPackage.has(pkg)) this.byPackage.set(pkg, a);
        if (a.scope === "subpackages") this.subpackages.set(pkg, [...(this.subpackages.get(pkg) ?? []), a]);
        if (a.scope === "document" && a.target.kind === "rule") {
          const r = m.rules[a.target.rule];
          const doc = r === undefined ? null : key(rulePath(m, r));
          if (doc !== null && !this.byDocument.has(doc)) this.byDocument.set(doc, a);
        }
      }
    }
  }

  values(m: Module, ruleIndex: number): Values {
    const r = m.rules[ruleIndex]!;
    const path = rulePath(m, r);
    const own = (m.annotations ?? [])
      .filter((a) => a.scope === "rule" && a.target.kind === "rule" && a.target.rule === ruleIndex)
      .sort((a, b) => b.location.row - a.location.row);
    const chain: JsonValue[] = own.length === 0 ? [{ path: path.slice(1) }] : own.map((a) => entry(path, a));
    const doc = this.byDocument.get(key(path));
    if (doc !== undefined) chain.push(entry(path, doc));
    const pkg = m.package.path;
    const pkgAnnotation = this.byPackage.get(key(pkg));
    if (pkgAnnotation !== undefined) chain.push(entry(pkg, pkgAnnotation));
    for (let n = pkg.length; n >= 2; n--) {
      for (const a of this.subpackages.get(key(pkg.slice(0, n))) ?? []) chain.push(entry(pkg.slice(0, n), a));
    }
    return { rule: own[0]?.value ?? {}, chain };
  }
}

const key = (path: readonly string[]): string => JSON.stringify(path);
const entry = (path: readonly string[], a: Annotation): JsonValue => ({ path: path.slice(1), annotations: a.value });

/** The package path and the head ref's ground prefix (`a.b[x].c` -> `data.pkg.a.b`). */
export function rulePath(m: Module, r: Rule): string[] {
  const out = [...m.package.path];
  for (const [i, t] of r.head.ref.entries()) {
    if (i === 0 && t.type === "var") out.push(t.name);
    else if (t.type === "string") out.push(t.value);
    else break;
  }
  return out;
}

function isMetadataCall(operator: readonly string[], args: readonly Term[]): string | null {
  const name = operator.join(".");
  return (name === RULE || name === CHAIN) && args.length === 0 ? name : null;
}

function callsMetadata(m: Module): boolean {
  let found = false;
  const visit = (t: Term): Term => {
    if (t.type === "call" && isMetadataCall(t.operator, t.args) !== null) found = true;
    return t;
  };
  for (const r of m.rules) mapRule(r, visit, (e) => e);
  return found;
}

function rewriteRule(r: Rule, values: () => Values): Rule {
  let v: Values | null = null;
  const get = (): Values => (v ??= values());
  const term = (t: Term): Term => {
    if (t.type !== "call") return t;
    const name = isMetadataCall(t.operator, t.args);
    if (name === null) return t;
    return literal(name === RULE ? get().rule : get().chain, t.location);
  };
  // `rego.metadata.chain(x)`: the call's output unified with the value.
  const expr = (e: Expr): Expr => {
    if (e.type !== "callexpr" || e.args.length !== 1) return e;
    const name = isMetadataCall(e.operator, []);
    if (name === null) return e;
    return { ...e, operator: ["eq"], args: [e.args[0]!, literal(name === RULE ? get().rule : get().chain, e.location)] };
  };
  return mapRule(r, term, expr);
}

/** A JSON value as a term (objects keep key order; `{}` is an empty object). */
function literal(v: JsonValue, location: Location): Term {
  if (v === null) return { type: "null", location };
  if (typeof v === "boolean") return { type: "boolean", value: v, location };
  if (typeof v === "number") return { type: "number", text: String(v), location };
  if (typeof v === "string") return { type: "string", value: v, location };
  if (Array.isArray(v)) return { type: "array", items: v.map((x: JsonValue) => literal(x, location)), location };
  const items = Object.entries(v as { readonly [k: string]: JsonValue }).map(([k, x]) => [{ type: "string", value: k, location } as Term, literal(x, location)] as const);
  return { type: "object", items, location };
}

/** Maps every term of a rule bottom-up with `f`, and every expression with `g` (after its terms). */
function mapRule(r: Rule, f: (t: Term) => Term, g: (e: Expr) => Expr): Rule {
  const term = (t: Term): Term => {
    switch (t.type) {
      case "ref":
        return f({ ...t, head: term(t.head), path: t.path.map(term) });
      case "array":
      case "set":
        return f({ ...t, items: t.items.map(term) });
      case "object":
        return f({ ...t, items: t.items.map(([k, x]) => [term(k), term(x)] as const) });
      case "call":
        return f({ ...t, args: t.args.map(term) });
      case "arraycomprehension":
      case "setcomprehension":
        return f({ ...t, term: term(t.term), body: body(t.body) });
      case "objectcomprehension":
        return f({ ...t, key: term(t.key), value: term(t.value), body: body(t.body) });
      default:
        return f(t);
    }
  };
  const expr = (e: Expr): Expr => {
    const w = e.with.map((x) => ({ ...x, value: term(x.value) }));
    switch (e.type) {
      case "termexpr":
        return g({ ...e, with: w, term: term(e.term) });
      case "callexpr":
        return g({ ...e, with: w, args: e.args.map(term) });
      case "somein":
        return g({ ...e, with: w, key: e.key === null ? null : term(e.key), value: term(e.value), domain: term(e.domain) });
      case "every":
        return g({ ...e, with: w, domain: term(e.domain), body: body(e.body) });
      case "not":
        return g({ ...e, with: w, body: body(e.body) });
      default:
        return g({ ...e, with: w });
    }
  };
  const body = (b: Body): Body => b.map(expr);
  const elseClause = (e: ElseClause | null): ElseClause | null => (e === null ? null : { ...e, value: term(e.value), body: body(e.body), else: elseClause(e.else) });
  const h = r.head;
  const head = h.kind === "contains" ? { ...h, key: term(h.key) } : h.kind === "function" ? { ...h, args: h.args.map(term), value: term(h.value) } : { ...h, value: term(h.value) };
  return { ...r, head, body: body(r.body), else: elseClause(r.else) };
}
