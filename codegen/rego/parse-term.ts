/**
 * Terms: scalars, vars, refs, calls, collections, comprehensions, and the infix
 * operators between them. Operator precedence follows OPA's parser
 * (v1/ast/parser.go), loosest first: `in` < `== != < > <= >=` < `|` < `&` <
 * `+ -` < `* / %`, all left-associative. `=`/`:=` only join two terms at
 * expression level.
 */
import type { Body, CallTerm, Location, Term } from "./ast.js";
import { isParseAbort, KEYWORDS, ParseState } from "./parse-state.js";
import type { Token } from "./lexer.js";
import { templateCall } from "./desugar.js";

const RELATION: Record<string, string> = { "==": "equal", "!=": "neq", "<": "lt", ">": "gt", "<=": "lte", ">=": "gte" };
const ARITH: Record<string, string> = { "+": "plus", "-": "minus" };
const FACTOR: Record<string, string> = { "*": "mul", "/": "div", "%": "rem" };
/** Binary operator levels, loosest first; level n's operands are level n+1 (level 4's are terms). */
const LEVELS: readonly Record<string, string>[] = [RELATION, { "|": "or" }, { "&": "and" }, ARITH, FACTOR];

function call(operator: string, args: Term[], location: Location): CallTerm {
  return { type: "call", operator: [operator], args, location };
}

export abstract class TermParser extends ParseState {
  // ------------------------------------------------------------ infix levels

  /** `a in b`, and at expression level also `k, v in b`. */
  parseTermIn(keyVal: boolean): Term {
    let lhs = this.parseRelation();
    if (keyVal && this.isPunct(",")) {
      const save = this.pos;
      this.next();
      const mhs = this.parseRelation();
      if (this.isKeyword("in")) {
        this.next();
        const rhs = this.parseRelation();
        lhs = { type: "call", operator: ["internal", "member_3"], args: [lhs, mhs, rhs], location: lhs.location };
      } else {
        this.pos = save;
        return lhs;
      }
    }
    while (this.isKeyword("in")) {
      this.next();
      const rhs = this.parseRelation();
      lhs = { type: "call", operator: ["internal", "member_2"], args: [lhs, rhs], location: lhs.location };
    }
    return lhs;
  }

  /** One left-associative level: `next` parses the tighter level (0 relation .. 4 term). */
  private level(n: number): Term {
    const ops = LEVELS[n] as Record<string, string>;
    let lhs = n === 4 ? this.parseTerm() : this.level(n + 1);
    for (;;) {
      const t = this.tok;
      const op = t.kind === "punct" ? ops[t.text] : undefined;
      if (op === undefined) return lhs;
      this.next();
      lhs = call(op, [lhs, n === 4 ? this.parseTerm() : this.level(n + 1)], lhs.location);
    }
  }
  parseRelation(): Term {
    return this.level(0);
  }

  // ------------------------------------------------------------ primary terms

  parseTerm(): Term {
    this.enter();
    try {
      return this.parseTermFinish(this.parsePrimary());
    } finally {
      this.leave();
    }
  }

  private parsePrimary(): Term {
    const t = this.tok;
    const location = this.loc(t);
    switch (t.kind) {
      case "number":
        this.next();
        return { type: "number", text: t.text, location };
      case "string":
        this.next();
        return { type: "string", value: t.value, location };
      case "rawstring":
        this.next();
        return { type: "string", value: t.value, raw: true, location };
      case "template":
        if (t.template?.first !== true) break;
        return this.parseTemplate(t, location);
      case "ident":
        return this.parseIdent(t, location);
      case "punct":
        break;
      default:
        this.fail(this.describe(t));
    }
    if (t.kind !== "punct") this.fail(this.describe(t));
    switch (t.text) {
      case "[":
        return this.parseArray(location);
      case "{":
        return this.parseSetOrObject(location);
      case "(": {
        this.next();
        const inner = this.parseTermIn(true);
        this.expectPunct(")", "non-terminated expression");
        return inner;
      }
      case "-": {
        this.next();
        const n = this.tok;
        if (n.kind === "number" && !n.ws) {
          this.next();
          return { type: "number", text: `-${n.text}`, location };
        }
        // Unary minus on a non-literal: 0 - x.
        const operand = this.parseTerm();
        return call("minus", [{ type: "number", text: "0", location }, operand], location);
      }
      default:
        return this.fail(this.describe(t));
    }
  }

  /** `$"a{x}b"`: literal pieces from the lexer, an interpolated term between each two. */
  private parseTemplate(t: Token, location: Location): Term {
    const raw = t.template?.raw === true;
    const parts: (string | Term)[] = [];
    let piece = this.next();
    for (;;) {
      if (piece.value !== "") parts.push(piece.value);
      if (piece.template?.last !== false) break;
      const at = this.tok;
      if (at.kind === "template" && at.template?.first === false) this.fail("empty template expression", at);
      parts.push(this.parseTermIn(false));
      const close = this.tok;
      if (close.kind !== "template" || close.template?.first !== false) this.fail(`${this.describe(close)}: expected } to close the template expression`);
      piece = this.next();
    }
    return templateCall({ raw, parts }, location);
  }

  private parseIdent(t: Token, location: Location): Term {
    switch (t.text) {
      case "null":
        this.next();
        return { type: "null", location };
      case "true":
      case "false":
        this.next();
        return { type: "boolean", value: t.text === "true", location };
    }
    // `or(a, b)` / `and(a, b)`: in a term position these stay the set builtins.
    if (KEYWORDS.has(t.text) || (this.isLogicalKeyword(t) && !this.isPunct("(", this.peek()))) this.fail(this.describe(t));
    this.next();
    return { type: "var", name: t.text, location };
  }

  /** Ref and call suffixes: only when `.`, `[` or `(` follows without whitespace. */
  private parseTermFinish(head: Term): Term {
    let path: Term[] = [];
    let cur: Term = head;
    const location = head.location;
    const flush = (): Term => (path.length === 0 ? cur : { type: "ref", head: cur, path, location });
    for (;;) {
      const t = this.tok;
      if (t.kind !== "punct" || t.ws) break;
      if (t.text === ".") {
        this.next();
        const id = this.tok;
        if (id.kind !== "ident" || id.ws) this.fail(`${this.describe(id)}: expected ident`);
        this.next();
        path.push({ type: "string", value: id.text, location: this.loc(id) });
      } else if (t.text === "[") {
        this.next();
        path.push(this.parseTermIn(false));
        this.expectPunct("]", "expected ]");
      } else if (t.text === "(") {
        const operator = this.callOperator(cur, path);
        this.next();
        const args = this.parseTermList(")");
        if (operator.length === 1 && operator[0] === "set" && args.length === 0) {
          cur = { type: "set", items: [], location };
        } else {
          cur = { type: "call", operator, args, location };
        }
        path = [];
      } else break;
    }
    const out = flush();
    // `input` and `data` alone are refs to the root documents, as in OPA.
    if (out.type === "var" && (out.name === "input" || out.name === "data")) {
      return { type: "ref", head: out, path: [], location };
    }
    return out;
  }

  private callOperator(head: Term, path: Term[]): string[] {
    if (head.type !== "var") this.fail(`illegal call (operator must be a name, not ${head.type})`);
    const parts = [head.name];
    for (const p of path) {
      if (p.type !== "string") this.fail("illegal call (operator must be a dotted name)");
      parts.push(p.value);
    }
    return parts;
  }

  /** Comma-separated terms up to `end` (consumed); trailing comma allowed. */
  parseTermList(end: string, first: Term[] = []): Term[] {
    const items = first;
    if (this.eatPunct(end)) return items;
    for (;;) {
      items.push(this.parseTermIn(false));
      if (this.eatPunct(end)) return items;
      this.expectPunct(",", `expected "," or "${end}"`);
      if (this.eatPunct(end)) return items;
    }
  }

  private parseArray(location: Location): Term {
    this.next();
    if (this.eatPunct("]")) return { type: "array", items: [], location };
    const save = this.pos;
    // Comprehensions win over `|` as set union, as in OPA.
    const head = this.parseTerm();
    if (this.isPunct("|")) {
      this.next();
      const body = this.comprehensionBody("]", save);
      if (body !== null) return { type: "arraycomprehension", term: head, body, location };
      return { type: "array", items: this.parseTermList("]"), location };
    }
    if (this.isPunct(",") || this.isPunct("]")) {
      return { type: "array", items: this.parseTermList("]", this.continueList(head)), location };
    }
    this.pos = save;
    return { type: "array", items: this.parseTermList("]"), location };
  }

  /**
   * The body of `[t | ...]` / `{t | ...}`, or null when it fails at a `,`: then the
   * cursor is back at `restart` and the brackets hold a list whose first item is a
   * `|` (set union) call, as OPA's parser falls back (`[x | y, 5]` is `[or(x, y), 5]`).
   */
  private comprehensionBody(end: string, restart: number): Body | null {
    const errors = this.errors.length;
    try {
      return this.parseBody(end);
    } catch (e) {
      if (!isParseAbort(e) || !this.isPunct(",")) throw e;
      this.errors.splice(errors);
      this.pos = restart;
      return null;
    }
  }

  /** After a first item was parsed: consume `,` (if any) and return [head]. */
  private continueList(head: Term): Term[] {
    if (this.isPunct(",")) this.next();
    return [head];
  }

  private parseSetOrObject(location: Location): Term {
    this.next();
    if (this.eatPunct("}")) return { type: "object", items: [], location };
    const save = this.pos;
    let head = this.parseTerm();
    if (this.isPunct("|")) {
      this.next();
      const body = this.comprehensionBody("}", save);
      if (body !== null) return { type: "setcomprehension", term: head, body, location };
      return { type: "set", items: this.parseTermList("}"), location };
    }
    if (!this.isPunct(",") && !this.isPunct("}") && !this.isPunct(":")) {
      this.pos = save;
      head = this.parseTermIn(false);
    }
    if (this.isPunct(":")) return this.parseObject(head, location);
    if (this.isPunct(",") || this.isPunct("}")) {
      return { type: "set", items: this.parseTermList("}", this.continueList(head)), location };
    }
    return this.fail(`${this.describe()}: non-terminated set`);
  }

  private parseObject(key: Term, location: Location): Term {
    this.next(); // ':'
    const save = this.pos;
    let value = this.parseTerm();
    if (this.isPunct("|")) {
      this.next();
      return { type: "objectcomprehension", key, value, body: this.parseBody("}"), location };
    }
    if (!this.isPunct(",") && !this.isPunct("}")) {
      this.pos = save;
      value = this.parseTermIn(false);
    }
    const items: [Term, Term][] = [[key, value]];
    for (;;) {
      if (this.eatPunct("}")) return { type: "object", items, location };
      this.expectPunct(",", 'expected "," or "}"');
      if (this.eatPunct("}")) return { type: "object", items, location };
      const k = this.parseTermIn(false);
      this.expectPunct(":", 'expected ":"');
      items.push([k, this.parseTermIn(false)]);
    }
  }

  /** Bodies are parsed by the expression parser (comprehensions need them). */
  abstract parseBody(end: string): Body;
}
