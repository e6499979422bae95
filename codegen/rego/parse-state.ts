/** Token cursor shared by the term/expression and module parsers. */
import type { Diagnostic } from "../diagnostics.js";
import type { Location } from "./ast.js";
import { lex, type Token } from "./lexer.js";
import type { Comment } from "./ast.js";

/** Thrown inside the parser to unwind to the nearest recovery point; never escapes `parseModule`. */
export class ParseAbort extends Error {
  override name = "ParseAbort";
}
export function isParseAbort(e: unknown): e is ParseAbort {
  return e instanceof Error && e.name === "ParseAbort";
}

export const KEYWORDS = new Set([
  "package", "import", "as", "default", "else", "not", "some", "with", "null", "true", "false",
  "every", "in", "if",
]);

/** Nesting limit: deeper input is rejected cleanly instead of overflowing the stack. */
export const MAX_DEPTH = 200;

export class ParseState {
  readonly tokens: Token[];
  readonly comments: Comment[];
  readonly errors: Diagnostic[] = [];
  pos = 0;
  depth = 0;
  /** A hint for the next error reported. */
  hintNext: string | undefined = undefined;
  /**
   * Pre-1.0 syntax (`p { ... }` bodies without `if`, `p[x] { ... }` partial sets);
   * `import rego.v1` switches a module back to v1.
   */
  v0 = false;
  /**
   * Keywords a module enabled with `import future.keywords.<k>` beyond Rego v1's own:
   * `not` (block bodies `not { ... }`), `and`, `or`.
   */
  readonly future = new Set<string>();

  constructor(readonly source: string, readonly file: string) {
    const r = lex(source, file);
    this.tokens = r.tokens;
    this.comments = r.comments;
    for (const e of r.errors) {
      this.errors.push({ code: "rego_parse_error", message: e.message, location: { file, row: e.row, col: e.col } });
    }
  }

  get tok(): Token {
    return this.tokens[this.pos] as Token;
  }
  peek(k = 1): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)] as Token;
  }
  next(): Token {
    const t = this.tok;
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }
  loc(t: Token = this.tok): Location {
    return { file: this.file, row: t.row, col: t.col };
  }
  isPunct(p: string, t: Token = this.tok): boolean {
    return t.kind === "punct" && t.text === p;
  }
  isKeyword(k: string, t: Token = this.tok): boolean {
    return t.kind === "ident" && t.text === k;
  }
  eatPunct(p: string): boolean {
    if (this.isPunct(p)) {
      this.next();
      return true;
    }
    return false;
  }
  /** Records a parse error at `t` and unwinds. */
  fail(message: string, t: Token = this.tok): never {
    this.error(message, t);
    throw new ParseAbort(message);
  }
  error(message: string, t: Token = this.tok): void {
    // The lexer already reported this illegal token.
    if (t.kind === "illegal" && this.errors.some((e) => e.location.row === t.row && e.location.col === t.col)) return;
    const hint = this.hintNext;
    this.hintNext = undefined;
    this.errors.push(hint === undefined ? { code: "rego_parse_error", message, location: this.loc(t) } : { code: "rego_parse_error", message, location: this.loc(t), hint });
  }
  /** `and` / `or` after their import. */
  isLogicalKeyword(t: Token = this.tok): boolean {
    return t.kind === "ident" && (t.text === "and" || t.text === "or") && this.future.has(t.text);
  }
  describe(t: Token = this.tok): string {
    if (t.kind === "eof") return "unexpected eof token";
    if (t.kind === "ident" && (KEYWORDS.has(t.text) || this.isLogicalKeyword(t))) return `unexpected ${t.text} keyword`;
    if (t.kind === "template") return t.template?.first === true ? "unexpected template string token" : "unexpected } token";
    if (t.kind === "ident") return `unexpected ident token`;
    if (t.kind === "number") return `unexpected number token`;
    if (t.kind === "string" || t.kind === "rawstring") return `unexpected string token`;
    if (t.kind === "illegal") return `illegal token`;
    return `unexpected ${t.text} token`;
  }
  expectPunct(p: string, what = `expected ${p}`): Token {
    if (!this.isPunct(p)) this.fail(`${this.describe()}: ${what}`);
    return this.next();
  }
  enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail("nesting too deep");
  }
  leave(): void {
    this.depth--;
  }
}
