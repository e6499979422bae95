/**
 * Module, rule, query and term parsing: source text -> AST (ast.ts) plus
 * `rego_parse_error` diagnostics. Never throws: after an error inside a rule it
 * skips to the next line that starts in column 1 and goes on.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, ElseClause, Expr, Import, Location, Module, Package, Rule, RuleHead, Term } from "./ast.js";
import { parseAnnotations } from "./annotations.js";
import { ExprParser } from "./parse-expr.js";
import { isParseAbort, KEYWORDS } from "./parse-state.js";

/**
 * Rego language version of a file: v1 (OPA 1.x, the default), pre-1.0 syntax, or v2
 * (OPA 1.22's bundle `rego_version: 2`: v1 read as if the file imported rego.v2).
 */
export type RegoVersion = "v0" | "v1" | "v2";

export interface ParseOptions {
  readonly regoVersion?: RegoVersion;
}

/** The message of the one error a v1 parse reports for a file written in pre-1.0 Rego. */
export const V0_SYNTAX_MESSAGE = "`if` keyword is required before rule body: this file is written in pre-1.0 Rego (v0)";
export const V0_SYNTAX_HINT =
  "compile it with --v0-compatible (tools.yaml: `policy.rego_version: v0`), or rewrite it to Rego v1 with `toolgate fmt --v0-compatible --write`";

export interface ParseModuleResult {
  /** Null only when not even the package clause could be read. */
  readonly module: Module | null;
  readonly errors: Diagnostic[];
}

const TRUE = (location: Location): Term => ({ type: "boolean", value: true, location });
const trueBody = (location: Location): Body => [{ type: "termexpr", term: TRUE(location), negated: false, with: [], location }];

/** Internal/unknown failures are reported as a located parse error, never thrown. */
function internalError(p: ExprParser, e: unknown): void {
  if (isParseAbort(e)) return;
  const msg = e instanceof RangeError ? "input too deeply nested" : `internal parser error: ${String(e)}`;
  p.error(msg);
}

class ModuleParser extends ExprParser {
  parseModule(): Module | null {
    let pkg: Package;
    try {
      pkg = this.parsePackage();
    } catch (e) {
      internalError(this, e);
      return null;
    }
    const imports: Import[] = [];
    const rules: Rule[] = [];
    // Pre-1.0 Rego: `import rego.v1` and `import future.keywords...` exclude each other (OPA).
    const readAsV0 = this.v0;
    let sawFuture = false;
    let sawRegoV1 = false;
    while (this.tok.kind !== "eof") {
      const start = this.pos;
      try {
        if (this.isKeyword("import")) {
          // An import may follow rules (OPA); it applies to the whole module.
          const pathAt = this.peek();
          const imp = this.parseImport();
          const isRegoV2 = imp.path.length === 2 && imp.path[0] === "rego" && imp.path[1] === "v2";
          // `import rego.v2` (OPA 1.22): `and`, `or` and the composite `not` in one import, and Rego v1.
          const isRegoV1 = (imp.path.length === 2 && imp.path[0] === "rego" && imp.path[1] === "v1") || isRegoV2;
          if (isRegoV2) for (const k of ["and", "or", "not"]) this.future.add(k);
          const isFuture = imp.path[0] === "future";
          if (readAsV0 && ((isFuture && sawRegoV1) || (isRegoV1 && sawFuture))) {
            this.hintNext = "remove the `future.keywords` imports: `import rego.v1` brings every keyword";
            this.error("the `rego.v1` import implies `future.keywords`, these are therefore mutually exclusive", pathAt);
          }
          sawFuture ||= isFuture;
          sawRegoV1 ||= isRegoV1;
          imports.push(imp);
          // `import rego.v1` makes this file Rego v1 whatever the compiler's default.
          if (isRegoV1) this.v0 = false;
        }
        else if (this.isKeyword("package")) this.fail("unexpected package keyword: a file holds one package");
        else rules.push(...this.parseRule());
        const t = this.tok;
        if (t.kind !== "eof" && !t.nl) this.fail(`${this.describe(t)}: expected end of statement`);
      } catch (e) {
        internalError(this, e);
        this.recover(start);
      }
      if (this.errors.length > 50) break;
    }
    return { type: "module", file: this.file, package: pkg, imports, rules, comments: this.comments };
  }

  /** Skip to the next token at column 1 on a new line. */
  private recover(start: number): void {
    if (this.pos === start) this.next();
    while (this.tok.kind !== "eof" && !(this.tok.nl && this.tok.col === 1)) this.next();
  }

  private parsePackage(): Package {
    const kw = this.tok;
    if (!this.isKeyword("package")) this.fail(`${this.describe()}: expected package`);
    this.next();
    const t = this.parseTerm();
    const path = this.refToPath(t);
    if (path === null || t.type === "ref" && t.head.type === "var" && t.head.name === "data" && t.path.length === 0) {
      this.fail("package expects a path of names (e.g. package a.b)", kw);
    }
    const parts = path[0] === "data" ? path : ["data", ...path];
    return { type: "package", path: parts, location: this.loc(kw) };
  }

  private parseImport(): Import {
    const kw = this.next();
    const t = this.parseTerm();
    const path = this.refToPath(t);
    if (path === null) this.fail("import path must be a reference of names", kw);
    const root = path[0] as string;
    if (!["data", "input", "future", "rego"].includes(root)) {
      this.fail(`invalid import path ${path.join(".")}: must begin with input, data, future or rego`, kw);
    }
    if (root === "future") this.checkFutureImport(path, kw);
    if (root === "rego" && !(path.length === 2 && (path[1] === "v1" || path[1] === "v2"))) {
      this.fail(`invalid import ${path.join(".")}: must be rego.v1 or rego.v2`, kw);
    }
    let alias: string | null = null;
    if (this.isKeyword("as")) {
      this.next();
      const a = this.tok;
      if (a.kind !== "ident" || KEYWORDS.has(a.text)) this.fail(`${this.describe(a)}: expected alias name`);
      this.next();
      alias = a.text;
    }
    return { type: "import", path, alias, location: this.loc(kw) };
  }

  /**
   * `import future.keywords[.k]`: the keywords Rego v1 always has are accepted;
   * `not`, `and` and `or` enable their syntax for the rest of the module (the
   * wildcard enables `not`, as in OPA; `and` / `or` are only ever imported by name).
   */
  private checkFutureImport(path: readonly string[], kw: import("./lexer.js").Token): void {
    if (path.length === 1 || path[1] !== "keywords" || path.length > 3) this.fail(`invalid import ${path.join(".")}: must be future.keywords or future.keywords.<keyword>`, kw);
    const k = path[2];
    if (k === undefined) {
      this.future.add("not");
      return;
    }
    if (["if", "contains", "in", "every"].includes(k)) return;
    if (k === "not" || k === "and" || k === "or") {
      this.future.add(k);
      return;
    }
    this.fail(`invalid import future.keywords.${k}: must be one of [and contains every if in not or]`, kw);
  }

  parseRule(): Rule[] {
    const start = this.tok;
    const location = this.loc(start);
    let isDefault = false;
    if (this.isKeyword("default")) {
      this.next();
      isDefault = true;
    }
    const head = this.parseHead(location);
    if (isDefault) {
      if (head.kind === "contains") this.fail("illegal default rule (must have a value)", start);
      if (this.isKeyword("if") || this.isPunct("{")) this.fail("illegal default rule (cannot have a body)", start);
      this.checkDefaultValue(head.value, start);
      return [{ type: "rule", default: true, head, body: trueBody(location), else: null, location }];
    }
    const valueGiven = this.headValueGiven;
    const body = this.parseRuleBody();
    if (body === null && !valueGiven && !this.v0 && head.kind === "value" && !this.isKeyword("else")) this.bodyRequired(head.ref.length, start);
    let elseClause: ElseClause | null = null;
    if (this.isKeyword("else")) {
      if (head.kind === "contains") this.fail("else keyword cannot be used on multi-value rules");
      elseClause = this.parseElse();
    }
    const rules: Rule[] = [{ type: "rule", default: false, head, body: body ?? trueBody(location), else: elseClause, location }];
    // Pre-1.0: `p { a } { b }` is two rules with one head.
    while (this.v0 && body !== null && elseClause === null && this.isPunct("{") && !this.tok.nl) {
      const at = this.loc();
      this.next();
      rules.push({ type: "rule", default: false, head, body: this.parseBody("}"), else: null, location: at });
    }
    return rules;
  }

  /** Whether the head just parsed had `= v` / `:= v`. */
  private headValueGiven = false;

  /**
   * Rego v1 has no bare rule statements: `p` and `p.a.b` need a body or a value,
   * `p.a` / `p[x]` need `contains` (OPA's ParseRuleFromExpr texts).
   */
  private bodyRequired(refLength: number, at: import("./lexer.js").Token): void {
    if (refLength === 2) {
      this.hintNext = "write `p contains x` for a set, `p[x] := v if { ... }` for an object, or add `if { ... }`";
      this.fail("`contains` keyword is required for partial set rules", at);
    }
    this.hintNext = "add a body (`p if { ... }`) or a value (`p := true`)";
    this.fail("rule must have a body", at);
  }

  private parseHead(location: Location): RuleHead {
    const name = this.tok;
    if (name.kind !== "ident" || KEYWORDS.has(name.text) || this.isLogicalKeyword(name)) this.fail(`${this.describe(name)}: expected rule name`);
    // The head ref: `p`, `p.q`, `p[x]`, `a.b[c].d`; parseTerm reads it, calls become functions.
    const t = this.parseTerm();
    let ref: Term[];
    let args: Term[] | null = null;
    if (t.type === "var") ref = [t];
    else if (t.type === "ref" && t.head.type === "var") ref = [t.head, ...t.path];
    else if (t.type === "call") {
      ref = t.operator.map((p, i) => (i === 0 ? { type: "var", name: p, location } : { type: "string", value: p, location }));
      args = [...t.args];
    } else return this.fail("rule head must be a name or reference", name);
    const head0 = ref[0];
    if (head0 !== undefined && head0.type === "var" && (head0.name === "input" || head0.name === "data") && ref.length === 1) {
      this.fail(`rule name conflicts with the root document ${head0.name}`, name);
    }
    if (this.isKeyword("contains")) {
      if (args !== null) this.fail("function rules cannot use contains", name);
      this.next();
      const key = this.parseTermIn(false);
      return { kind: "contains", ref, key, location };
    }
    let value: Term = TRUE(location);
    let assign = false;
    const hasValue = this.isPunct(":=") || this.isPunct("=");
    this.headValueGiven = hasValue;
    if (hasValue) {
      assign = this.next().text === ":=";
      value = this.parseTermIn(false);
    }
    // Pre-1.0: `p[x] { ... }` (no value) is a partial set, OPA's v0 multi-value rule.
    const last = ref[ref.length - 1];
    if (this.v0 && !hasValue && args === null && ref.length >= 2 && last !== undefined && (ref.length === 2 || last.type !== "string")) {
      return { kind: "contains", ref: ref.slice(0, -1), key: last, location };
    }
    // `f()`: a zero-argument function is a rule (see zero-arity.ts).
    if (args !== null && args.length > 0) return { kind: "function", ref, args, value, assign, location };
    return { kind: "value", ref, value, assign, location };
  }

  /** `if { ... }`, `if <literal>`, or nothing. A bare `{` body is an error in Rego v1. */
  private parseRuleBody(): Body | null {
    if (this.isKeyword("if")) {
      this.next();
      if (this.isPunct("{")) return this.braceBodyOrLiteral();
      return [this.parseLiteral()];
    }
    if (this.isPunct("{") && !this.tok.nl) {
      if (this.v0) {
        this.next();
        return this.parseBody("}");
      }
      this.hintNext = V0_SYNTAX_HINT;
      this.fail(V0_SYNTAX_MESSAGE);
    }
    return null;
  }

  /**
   * `if {` opens a body, except when the braces are a term used as the single
   * literal (`if {x: i | ...}`): try the body first, then the literal.
   */
  private braceBodyOrLiteral(): Body {
    const save = this.pos;
    const errs = this.errors.length;
    try {
      this.next();
      return this.parseBody("}");
    } catch (e) {
      if (!isParseAbort(e)) throw e;
      const bodyErrors = this.errors.splice(errs);
      const afterBody = this.pos;
      this.pos = save;
      try {
        // `if {}` is an empty body, not an empty object.
        if (this.isPunct("}", this.peek())) throw e;
        const lit = this.parseLiteral();
        if (this.tok.kind === "eof" || this.tok.nl || this.isKeyword("else")) return [lit];
      } catch (e2) {
        if (!isParseAbort(e2)) throw e2;
      }
      this.errors.splice(errs, this.errors.length - errs, ...bodyErrors);
      this.pos = afterBody;
      throw e;
    }
  }

  private parseElse(): ElseClause {
    const kw = this.next();
    const location = this.loc(kw);
    let value: Term = TRUE(location);
    if (this.isPunct(":=") || this.isPunct("=")) {
      this.next();
      value = this.parseTermIn(false);
    }
    const body = this.parseRuleBody() ?? trueBody(location);
    const next = this.isKeyword("else") ? this.parseElse() : null;
    return { type: "else", value, body, else: next, location };
  }

  private checkDefaultValue(value: Term, at: import("./lexer.js").Token): void {
    const bad = (t: Term): string | null => {
      switch (t.type) {
        case "var": return "var";
        case "ref": return "ref";
        case "call": return "call";
        case "array": case "set": return firstBad(t.items);
        case "object": return firstBad(t.items.flat());
        default: return null;
      }
    };
    const firstBad = (ts: readonly Term[]): string | null => {
      for (const t of ts) {
        const b = bad(t);
        if (b !== null) return b;
      }
      return null;
    };
    const b = bad(value);
    if (b !== null) this.fail(`illegal default rule (value cannot contain ${b})`, at);
  }

  parseQueryBody(): Body {
    const body: Expr[] = [];
    for (;;) {
      while (this.eatPunct(";"));
      if (this.tok.kind === "eof") break;
      body.push(this.parseLiteral());
      const t = this.tok;
      if (!(t.kind === "eof" || this.isPunct(";") || t.nl)) this.fail(`${this.describe(t)}: expected ; or newline`);
    }
    if (body.length === 0) this.fail("empty query");
    return body;
  }
}

function capped(errors: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const e of errors) {
    const key = `${e.location.row}:${e.location.col}:${e.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(e);
    }
  }
  return out.sort((a, b) => a.location.row - b.location.row || a.location.col - b.location.col).slice(0, 10);
}

/**
 * Parses one Rego module. Errors are `rego_parse_error`, sorted, at most 10. A v1
 * parse of a pre-1.0 file reports one error saying so (the first place it shows),
 * not the follow-on errors its bodies cause.
 */
export function parseModule(source: string, file: string, options: ParseOptions = {}): ParseModuleResult {
  const p = new ModuleParser(source, file);
  p.v0 = options.regoVersion === "v0";
  if (options.regoVersion === "v2") for (const k of ["and", "or", "not"]) p.future.add(k);
  let module = p.parseModule();
  const v0Error = p.errors.find((e) => e.message === V0_SYNTAX_MESSAGE);
  if (v0Error !== undefined) return { module, errors: [v0Error] };
  if (module !== null) {
    const { annotations, errors } = parseAnnotations(module);
    if (annotations.length > 0) module = { ...module, annotations };
    p.errors.push(...errors);
  }
  return { module, errors: capped(p.errors) };
}

/** Parses a query (literals separated by `;` or newlines). */
export function parseQuery(source: string, file = "query"): { body: Body | null; errors: Diagnostic[] } {
  const p = new ModuleParser(source, file);
  try {
    const body = p.parseQueryBody();
    return { body: p.errors.length === 0 ? body : null, errors: capped(p.errors) };
  } catch (e) {
    internalError(p, e);
    return { body: null, errors: capped(p.errors) };
  }
}

/** Parses a single term (e.g. a conformance `input_term`). */
export function parseTerm(source: string, file = "term"): { term: Term | null; errors: Diagnostic[] } {
  const p = new ModuleParser(source, file);
  try {
    const term = p.parseTermIn(false);
    if (p.tok.kind !== "eof") p.fail(`${p.describe()}: expected end of term`);
    return { term: p.errors.length === 0 ? term : null, errors: capped(p.errors) };
  } catch (e) {
    internalError(p, e);
    return { term: null, errors: capped(p.errors) };
  }
}
