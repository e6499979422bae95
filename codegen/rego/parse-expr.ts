/**
 * Expressions and bodies: literals (`not`, `some`, `every`, `with`), `=`/`:=`
 * between two terms, and bodies separated by `;` or newlines.
 */
import type { Body, Expr, Location, LogicalOperand, RefTerm, Term, VarTerm, WithModifier } from "./ast.js";
import { logical, notBlock } from "./desugar.js";
import { isParseAbort, KEYWORDS } from "./parse-state.js";
import { TermParser } from "./parse-term.js";

export class ExprParser extends TermParser {

  /** Literals separated by `;` or newlines, up to the closing `end` (consumed). */
  parseBody(end: string): Body {
    const body: Expr[] = [];
    // The opening `{` (or `|` of a comprehension), for the empty-body error.
    const open = this.tokens[Math.max(0, this.pos - 1)] ?? this.tok;
    for (;;) {
      while (this.eatPunct(";"));
      if (this.isPunct(end)) {
        if (body.length === 0) this.fail("found empty body", open);
        this.next();
        return body;
      }
      if (this.tok.kind === "eof") this.fail(`unexpected eof token: expected ${end}`);
      body.push(this.parseLiteral());
      const t = this.tok;
      if (!(this.isPunct(";") || this.isPunct(end) || t.nl)) this.fail(`${this.describe(t)}: expected ; or newline or ${end}`);
    }
  }

  /**
   * One literal: `[not] expr {with ...}`, `some ...`, `every ...`; after their
   * imports also `not { body }` and `and` / `or` between operands. Precedence, as
   * OPA's parser: `not` > `and` > `or` > `with` (a `with` after the last operand
   * applies to the whole expression; one on an inner operand is an error). An
   * operand is a literal, a braced body, or a parenthesised `and` / `or` group.
   */
  parseLiteral(): Expr {
    if (!this.future.has("and") && !this.future.has("or")) return this.withMods(this.parseLiteralCore());
    const location = this.loc();
    const chain = this.parseDisjunction();
    const expr = chain.operands.length === 1 ? this.single(chain.operands[0]!) : logical("or", chain.operands, location);
    return this.withMods(expr);
  }

  private single(o: LogicalOperand): Expr {
    return "block" in o ? this.fail("a braced body must be an operand of and / or") : o.expr;
  }

  private parseDisjunction(): { operands: LogicalOperand[] } {
    const operands = [this.parseConjunction(false, this.loc())];
    while (this.isKeyword("or") && this.future.has("or")) {
      this.next();
      operands.push(this.parseConjunction(true, this.loc()));
    }
    return { operands };
  }

  private parseConjunction(afterOperator: boolean, location: Location): LogicalOperand {
    const first = this.parseOperand(afterOperator);
    if (!this.isKeyword("and") || !this.future.has("and")) return first;
    const operands = [first];
    while (this.isKeyword("and") && this.future.has("and")) {
      this.next();
      operands.push(this.parseOperand(true));
    }
    return { expr: logical("and", operands, location) };
  }

  /**
   * A braced body where a term could also start: after `and` / `or` it is a body;
   * at the start of a literal only when `and` / `or` follows it. `( ... )` is a
   * group when it holds `and` / `or`, else a term.
   */
  private parseOperand(afterOperator: boolean): LogicalOperand {
    const save = this.pos;
    const errs = this.errors.length;
    const location = this.loc();
    if (this.isPunct("{")) {
      try {
        this.next();
        const block = this.parseBody("}");
        if (afterOperator || this.isLogicalKeyword()) return { block, location };
      } catch (e) {
        if (!isParseAbort(e)) throw e;
      }
      this.errors.splice(errs);
      this.pos = save;
    }
    const negated = this.isKeyword("not") && this.future.has("not") && this.isPunct("(", this.peek());
    if (this.isPunct("(") || negated) {
      const group = this.tryGroup(negated, location);
      if (group !== null) return { expr: group };
      this.errors.splice(errs);
      this.pos = save;
    }
    const expr = this.parseLiteralCore();
    if (this.isKeyword("with")) {
      const withAt = this.tok;
      const withed = this.withMods(expr);
      if (this.isLogicalKeyword()) {
        this.hintNext = `wrap the operand in (...) or {...}, or move \`with\` after the whole \`${this.tok.text}\` expression`;
        this.fail(`\`with\` modifier is not allowed on operand of \`${this.tok.text}\``, withAt);
      }
      return { expr: withed };
    }
    return { expr };
  }

  /** `(a or b)` / `not (a or b)`: null (to re-read as a term) unless the parentheses hold `and` / `or`. */
  private tryGroup(negated: boolean, location: Location): Expr | null {
    try {
      if (negated) this.next();
      this.next();
      const inner = this.loc();
      const chain = this.parseDisjunction();
      const only = chain.operands.length === 1 ? chain.operands[0]! : null;
      const expr = only === null ? logical("or", chain.operands, inner) : "block" in only ? null : only.expr;
      if (expr === null || expr.source?.kind !== "logical" || !this.isPunct(")")) return null;
      this.next();
      const group: Expr = { ...expr, source: { ...expr.source, paren: true as const } };
      return negated ? notBlock([group], location, true) : group;
    } catch (e) {
      if (!isParseAbort(e)) throw e;
      return null;
    }
  }

  /** A literal without its `with` modifiers. */
  private parseLiteralCore(): Expr {
    const start = this.tok;
    const location = this.loc(start);
    if (this.isKeyword("some")) return this.parseSome(location);
    if (this.isKeyword("every")) return this.parseEvery(location);
    let negated = false;
    if (this.isKeyword("not")) {
      this.next();
      negated = true;
      if (this.isKeyword("some") || this.isKeyword("every")) this.fail(`${this.describe()}: not cannot negate ${this.tok.text}`);
      if (this.future.has("not") && this.isPunct("{")) {
        this.next();
        return notBlock(this.parseBody("}"), location);
      }
    }
    const expr = this.parseExprCore(location, negated);
    return negated && this.future.has("not") ? { ...expr, composite: true } : expr;
  }

  private parseExprCore(location: Location, negated: boolean): Expr {
    const lhs = this.parseTermIn(true);
    const t = this.tok;
    if (t.kind === "punct" && (t.text === ":=" || t.text === "=")) {
      this.next();
      const rhs = this.parseTermIn(true);
      return { type: "callexpr", operator: [t.text === ":=" ? "assign" : "eq"], args: [lhs, rhs], negated, with: [], location };
    }
    if (lhs.type === "call") return { type: "callexpr", operator: lhs.operator, args: lhs.args, negated, with: [], location };
    return { type: "termexpr", term: lhs, negated, with: [], location };
  }

  private withMods(expr: Expr): Expr {
    if (!this.isKeyword("with")) return expr;
    const mods: WithModifier[] = [];
    while (this.isKeyword("with")) {
      const w = this.next();
      const target = this.parseTerm();
      if (target.type !== "ref" && target.type !== "var") this.fail("with target must be a reference", w);
      if (!this.isKeyword("as")) this.fail(`${this.describe()}: expected as`);
      this.next();
      const value = this.parseTermIn(false);
      mods.push({ type: "with", target, value, location: this.loc(w) });
    }
    return { ...expr, with: mods };
  }

  private parseSome(location: Location): Expr {
    const kw = this.next();
    const save = this.pos;
    const t = this.parseTermIn(true);
    if (t.type === "call" && t.operator.length === 2 && t.operator[0] === "internal") {
      if (t.operator[1] === "member_2") {
        const [value, domain] = t.args as [Term, Term];
        return { type: "somein", key: null, value, domain, negated: false, with: [], location };
      }
      if (t.operator[1] === "member_3") {
        const [key, value, domain] = t.args as [Term, Term, Term];
        return { type: "somein", key, value, domain, negated: false, with: [], location };
      }
    }
    this.pos = save;
    const vars: VarTerm[] = [];
    for (;;) {
      const v = this.tok;
      if (v.kind !== "ident" || KEYWORDS.has(v.text)) this.fail(`${this.describe(v)}: expected var`, v);
      this.next();
      vars.push({ type: "var", name: v.text, location: this.loc(v) });
      if (!this.eatPunct(",")) break;
    }
    if (vars.length === 0) this.fail("expected var after some", kw);
    return { type: "some", vars, negated: false, with: [], location };
  }

  private parseEvery(location: Location): Expr {
    const kw = this.next();
    const t = this.parseTermIn(true);
    let key: Term | null = null;
    let value: Term;
    let domain: Term;
    if (t.type === "call" && t.operator[0] === "internal" && t.operator[1] === "member_2") {
      [value, domain] = t.args as [Term, Term];
    } else if (t.type === "call" && t.operator[0] === "internal" && t.operator[1] === "member_3") {
      [key, value, domain] = t.args as [Term, Term, Term];
    } else {
      return this.fail("every: expected `x in xs` or `k, v in xs`", kw);
    }
    for (const v of key === null ? [value] : [key, value]) {
      if (v.type !== "var") this.fail("every: key and value must be variables", kw);
    }
    this.expectPunct("{", "every: expected body in braces");
    const body = this.parseBody("}");
    return { type: "every", key, value, domain, body, negated: false, with: [], location };
  }

  /** A ref made of a var head and constant string/number path, for package/import paths. */
  refToPath(t: Term): string[] | null {
    if (t.type === "var") return [t.name];
    if (t.type !== "ref" || t.head.type !== "var") return null;
    const out = [t.head.name];
    for (const p of t.path) {
      if (p.type !== "string") return null;
      out.push(p.value);
    }
    return out;
  }

  isRef(t: Term): t is RefTerm {
    return t.type === "ref";
  }
}
