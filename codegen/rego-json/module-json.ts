/**
 * A parsed module (codegen/rego's AST) as OPA's AST JSON, the document `rego.parse_module`
 * returns: what Go's encoding/json writes for an `ast.Module` under OPA's default JSON
 * options (no locations except on comments). Written as JSON text so that numbers keep
 * their source spelling (`1.0`, integers beyond 2^53).
 *
 * Shapes follow OPA's parser: a term is `{"type", "value"}`; an expression is
 * `{"index", "terms"}` (+ `negated`, `with`), its terms one term, an array of operator
 * ref and operands for a call, `{"symbols"}` for `some`, `{"key","value","domain","body"}`
 * for `every`; a rule is `{"head", "body"}` (+ `default`, `else`); wildcards become `$0`,
 * `$1`, ... in parse order; heads get OPA's `name`/`key` back-compat fields.
 */
import type {
  Body,
  ElseClause,
  Expr,
  Import,
  Location,
  Module,
  Rule,
  RuleHead,
  Term,
  WithModifier,
} from "../rego/ast.js";

/** A JSON text fragment. */
type Json = string;

const str = (s: string): Json => JSON.stringify(s);
const obj = (fields: readonly (readonly [string, Json | undefined])[]): Json =>
  `{${fields.filter((f): f is readonly [string, Json] => f[1] !== undefined).map(([k, v]) => `${str(k)}:${v}`).join(",")}}`;
const arr = (items: readonly Json[]): Json => `[${items.join(",")}]`;
const term = (type: string, value: Json): Json => obj([["type", str(type)], ["value", value]]);
const varTerm = (name: string): Json => term("var", str(name));
const stringTerm = (s: string): Json => term("string", str(s));

/** `rego.parse_module`'s result for a module, as JSON text. */
export function moduleToOpaJson(module: Module): string {
  return new ModuleWriter().module(module);
}

class ModuleWriter {
  private wildcards = 0;
  /** A head's key is the same term as its ref's last element: one wildcard name for both. */
  private readonly wildcardNames = new WeakMap<Term, string>();

  module(m: Module): Json {
    return obj([
      ["package", obj([["path", arr(m.package.path.map((p, i) => (i === 0 ? varTerm(p) : stringTerm(p))))]])],
      ["imports", m.imports.length === 0 ? undefined : arr(m.imports.map((i) => this.import(i)))],
      ["rules", m.rules.length === 0 ? undefined : arr(m.rules.map((r) => this.rule(r)))],
      ["comments", m.comments.length === 0 ? undefined : arr(m.comments.map((c) => obj([["Text", str(Buffer.from(c.text, "utf8").toString("base64"))], ["Location", location(c.location)]])))],
    ]);
  }

  private import(i: Import): Json {
    const [root, ...rest] = i.path;
    const path = rest.length === 0 ? varTerm(root!) : term("ref", arr([varTerm(root!), ...rest.map(stringTerm)]));
    return obj([["path", path], ["alias", i.alias === null ? undefined : str(i.alias)]]);
  }

  private rule(r: Rule): Json {
    // A body the parser generated (no `if`) shares the rule's location object.
    const hasIf = !(r.body.length === 1 && r.body[0]!.location === r.location);
    const head = r.default ? this.defaultHead(r.head) : this.head(r.head, hasIf);
    return obj([
      ["head", head],
      ["body", this.body(r.body)],
      ["default", r.default ? "true" : undefined],
      ["else", r.else === null ? undefined : this.elseRule(r.head, r.else)],
    ]);
  }

  /** OPA's head fields for a parsed head (parseHead plus parseRules' back-compat rewrites). */
  private head(h: RuleHead, hasIf: boolean, value?: Term): Json {
    const ref = h.ref;
    const first = ref[0]!;
    const firstName = first.type === "var" ? first.name : undefined;
    if (h.kind === "contains") {
      const refJson = this.terms(ref);
      return obj([["name", ref.length === 1 && firstName !== undefined ? str(firstName) : undefined], ["key", this.term(h.key)], ["ref", refJson]]);
    }
    const args = h.kind === "function" ? h.args : [];
    // A value the parser generated (`p if ...`) shares the head's location object.
    const explicit = h.value.location !== h.location;
    let name = ref.length === 1 ? firstName : undefined;
    let key: Term | undefined;
    if (ref.length === 2 && args.length === 0) {
      const last = ref[1]!;
      if (hasIf) {
        if (last.type === "var" || last.type === "ref" || !isGround(last)) key = last;
        if (explicit) name = firstName;
      } else {
        name = firstName;
        key = last;
      }
    }
    // Written in source order (ref, args, value) so that wildcards are numbered as OPA's parser numbers them.
    const refJson = this.terms(ref);
    const argsJson = args.length === 0 ? undefined : this.terms(args);
    return obj([
      ["name", name === undefined ? undefined : str(name)],
      ["key", key === undefined ? undefined : this.term(key)],
      ["value", this.term(value ?? h.value)],
      ["ref", refJson],
      ["args", argsJson],
      ["assign", h.assign ? "true" : undefined],
    ]);
  }

  /** `default p := v` keeps OPA's plain ref head (no back-compat rewrite). */
  private defaultHead(h: RuleHead): Json {
    const first = h.ref[0]!;
    const args = h.kind === "function" ? h.args : [];
    return obj([
      ["name", h.ref.length === 1 && first.type === "var" ? str(first.name) : undefined],
      ["value", h.kind === "contains" ? undefined : this.term(h.value)],
      ["ref", this.terms(h.ref)],
      ["args", args.length === 0 ? undefined : this.terms(args)],
      ["assign", h.kind !== "contains" && h.assign ? "true" : undefined],
    ]);
  }

  private elseRule(head: RuleHead, e: ElseClause): Json {
    return obj([
      ["head", this.head(head, true, e.value)],
      ["body", this.body(e.body)],
      ["else", e.else === null ? undefined : this.elseRule(head, e.else)],
    ]);
  }

  private body(b: Body): Json {
    return arr(b.map((e, i) => this.expr(e, i)));
  }

  private expr(e: Expr, index: number): Json {
    return obj([
      ["index", String(index)],
      ["terms", this.exprTerms(e)],
      ["negated", e.negated ? "true" : undefined],
      ["with", e.with.length === 0 ? undefined : arr(e.with.map((w) => this.with(w)))],
    ]);
  }

  private exprTerms(e: Expr): Json {
    switch (e.type) {
      case "termexpr":
        return this.term(e.term);
      case "callexpr":
        return arr([operatorRef(e.operator), ...e.args.map((a) => this.term(a))]);
      case "some":
        return obj([["symbols", this.terms(e.vars)]]);
      case "somein": {
        const operands = e.key === null ? [e.value, e.domain] : [e.key, e.value, e.domain];
        const op = e.key === null ? ["internal", "member_2"] : ["internal", "member_3"];
        return obj([["symbols", arr([term("call", arr([operatorRef(op), ...operands.map((t) => this.term(t))]))])]]);
      }
      case "every":
        return obj([
          ["key", e.key === null ? "null" : this.term(e.key)],
          ["value", this.term(e.value)],
          ["domain", this.term(e.domain)],
          ["body", this.body(e.body)],
        ]);
      case "not":
        // Compiler output only; a parsed module has `negated` expressions instead.
        return obj([["body", this.body(e.body)]]);
    }
  }

  private with(w: WithModifier): Json {
    return obj([["target", this.term(w.target)], ["value", this.term(w.value)]]);
  }

  private wildcard(t: Term): string {
    let name = this.wildcardNames.get(t);
    if (name === undefined) {
      name = `$${this.wildcards++}`;
      this.wildcardNames.set(t, name);
    }
    return name;
  }

  private terms(ts: readonly Term[]): Json {
    return arr(ts.map((t) => this.term(t)));
  }

  private term(t: Term): Json {
    switch (t.type) {
      case "null":
        return term("null", "{}");
      case "boolean":
        return term("boolean", String(t.value));
      case "number":
        return term("number", t.text);
      case "string":
        return stringTerm(t.value);
      case "var":
        return varTerm(t.name === "_" ? this.wildcard(t) : t.name);
      case "ref":
        return term("ref", arr([this.term(t.head), ...t.path.map((p) => this.term(p))]));
      case "array":
        return term("array", this.terms(t.items));
      case "set":
        return term("set", this.terms(t.items));
      case "object":
        return term("object", arr(t.items.map(([k, v]) => arr([this.term(k), this.term(v)]))));
      case "call":
        return term("call", arr([operatorRef(t.operator), ...t.args.map((a) => this.term(a))]));
      case "arraycomprehension":
        return term("arraycomprehension", obj([["term", this.term(t.term)], ["body", this.body(t.body)]]));
      case "setcomprehension":
        return term("setcomprehension", obj([["term", this.term(t.term)], ["body", this.body(t.body)]]));
      case "objectcomprehension":
        return term("objectcomprehension", obj([["key", this.term(t.key)], ["value", this.term(t.value)], ["body", this.body(t.body)]]));
    }
  }
}

/** A call's operator as OPA writes it: a ref of the dotted name (`object.get` -> [var object, string get]). */
function operatorRef(op: readonly string[]): Json {
  return term("ref", arr(op.map((p, i) => (i === 0 ? varTerm(p) : stringTerm(p)))));
}

function location(l: Location): Json {
  return obj([["file", str(l.file)], ["row", String(l.row)], ["col", String(l.col)]]);
}

function isGround(t: Term): boolean {
  switch (t.type) {
    case "var":
      return false;
    case "ref":
      return isGround(t.head) && t.path.every(isGround);
    case "array":
    case "set":
      return t.items.every(isGround);
    case "object":
      return t.items.every(([k, v]) => isGround(k) && isGround(v));
    case "call":
      return t.args.every(isGround);
    case "arraycomprehension":
    case "setcomprehension":
    case "objectcomprehension":
      return true;
    default:
      return true;
  }
}
