/**
 * gobwas/glob's pattern syntax (syntax/lexer and syntax/ast), step for step: what it
 * accepts, the tree it builds and its error texts (`unexpected end of input`,
 * `expected close range character`, `could not parse range`, `hi character 'a' should
 * be greater than lo 'z'`). Quirks kept: a trailing `\` is dropped, an unclosed `{`
 * ends at the end of the pattern, `}` and `,` outside braces are text, `[a-cx]` is an
 * error, and U+0000 reads as the end of the pattern.
 */

export type GlobNode =
  | { readonly kind: "pattern"; readonly children: GlobNode[] }
  | { readonly kind: "anyOf"; readonly children: GlobNode[] }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "any" }
  | { readonly kind: "super" }
  | { readonly kind: "single" }
  | { readonly kind: "list"; readonly chars: string; readonly not: boolean }
  | { readonly kind: "range"; readonly lo: number; readonly hi: number; readonly not: boolean };

export class GlobSyntaxError extends Error {}

type TokenType = "eof" | "error" | "text" | "any" | "super" | "single" | "not" | "separator" | "rangeOpen" | "rangeClose" | "rangeLo" | "rangeHi" | "rangeBetween" | "termsOpen" | "termsClose";
interface Token {
  readonly type: TokenType;
  readonly raw: string;
}

const EOF = 0;
const RUNE_ERROR = 0xfffd;
const ANY = 0x2a;
const COMMA = 0x2c;
const SINGLE = 0x3f;
const ESCAPE = 0x5c;
const RANGE_OPEN = 0x5b;
const RANGE_CLOSE = 0x5d;
const TERMS_OPEN = 0x7b;
const TERMS_CLOSE = 0x7d;
const RANGE_NOT = 0x21;
const RANGE_BETWEEN = 0x2d;
const TEXT_BREAKERS = [SINGLE, ANY, RANGE_OPEN, TERMS_OPEN];
const TERMS_BREAKERS = [...TEXT_BREAKERS, TERMS_CLOSE, COMMA];

class Lexer {
  private readonly runes: number[];
  private pos = 0;
  private err: string | null = null;
  private readonly tokens: Token[] = [];
  private termsLevel = 0;
  private lastRune = EOF;
  private lastRuneSize = 0;
  private hasRune = false;

  constructor(source: string) {
    this.runes = [...source].map((c) => c.codePointAt(0)!);
  }

  next(): Token {
    // A lexer error wins over tokens still queued, as in gobwas.
    if (this.err !== null) return { type: "error", raw: this.err };
    const t = this.tokens.shift();
    if (t !== undefined) return t;
    this.fetchItem();
    return this.next();
  }

  private peek(): [number, number] {
    if (this.pos === this.runes.length) return [EOF, 0];
    const r = this.runes[this.pos]!;
    if (r === RUNE_ERROR) {
      this.err = "could not read rune";
      return [EOF, 0];
    }
    return [r, 1];
  }

  private read(): number {
    if (this.hasRune) {
      this.hasRune = false;
      this.pos += this.lastRuneSize;
      return this.lastRune;
    }
    const [r, s] = this.peek();
    this.pos += s;
    this.lastRune = r;
    this.lastRuneSize = s;
    return r;
  }

  private unread(): void {
    if (this.hasRune) {
      this.err = "could not unread rune";
      return;
    }
    this.pos -= this.lastRuneSize;
    this.hasRune = true;
  }

  private push(type: TokenType, raw: string): void {
    this.tokens.push({ type, raw });
  }

  private fetchItem(): void {
    const r = this.read();
    const s = String.fromCodePoint(r);
    if (r === EOF) this.push("eof", "");
    else if (r === TERMS_OPEN) {
      this.termsLevel++;
      this.push("termsOpen", s);
    } else if (r === COMMA && this.termsLevel > 0) this.push("separator", s);
    else if (r === TERMS_CLOSE && this.termsLevel > 0) {
      this.push("termsClose", s);
      this.termsLevel--;
    } else if (r === RANGE_OPEN) {
      this.push("rangeOpen", s);
      this.fetchRange();
    } else if (r === SINGLE) this.push("single", s);
    else if (r === ANY) {
      if (this.read() === ANY) this.push("super", "**");
      else {
        this.unread();
        this.push("any", s);
      }
    } else {
      this.unread();
      this.fetchText(this.termsLevel > 0 ? TERMS_BREAKERS : TEXT_BREAKERS);
    }
  }

  private fetchRange(): void {
    let wantHi = false;
    let wantClose = false;
    let seenNot = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) {
        this.err = "unexpected end of input";
        return;
      }
      if (wantClose) {
        if (r !== RANGE_CLOSE) this.err = "expected close range character";
        else this.push("rangeClose", "]");
        return;
      }
      if (wantHi) {
        this.push("rangeHi", String.fromCodePoint(r));
        wantClose = true;
        continue;
      }
      if (!seenNot && r === RANGE_NOT) {
        this.push("not", "!");
        seenNot = true;
        continue;
      }
      const [n, w] = this.peek();
      if (n === RANGE_BETWEEN) {
        this.pos += w;
        this.push("rangeLo", String.fromCodePoint(r));
        this.push("rangeBetween", "-");
        wantHi = true;
        continue;
      }
      this.unread();
      this.fetchText([RANGE_CLOSE]);
      wantClose = true;
    }
  }

  private fetchText(breakers: readonly number[]): void {
    let data = "";
    let escaped = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) break;
      if (!escaped) {
        if (r === ESCAPE) {
          escaped = true;
          continue;
        }
        if (breakers.includes(r)) {
          this.unread();
          break;
        }
      }
      escaped = false;
      data += String.fromCodePoint(r);
    }
    if (data.length > 0) this.push("text", data);
  }
}

function insert(parent: GlobNode & { children: GlobNode[] }, child: GlobNode): void {
  parent.children.push(child);
}

/** gobwas syntax.Parse: the pattern's tree, or GlobSyntaxError with gobwas's text. */
export function parseGlob(source: string): GlobNode {
  const lex = new Lexer(source);
  const root: GlobNode & { children: GlobNode[] } = { kind: "pattern", children: [] };
  // The node's parent chain: gobwas moves `tree` up and down through Parent links.
  const parents = new Map<GlobNode, GlobNode & { children: GlobNode[] }>();
  let tree: GlobNode & { children: GlobNode[] } = root;
  for (;;) {
    const token = lex.next();
    switch (token.type) {
      case "eof":
        return root;
      case "error":
        throw new GlobSyntaxError(token.raw);
      case "text":
        insert(tree, { kind: "text", text: token.raw });
        break;
      case "any":
      case "super":
      case "single":
        insert(tree, { kind: token.type });
        break;
      case "rangeOpen":
        insert(tree, parseRange(lex));
        break;
      case "termsOpen": {
        const anyOf: GlobNode & { children: GlobNode[] } = { kind: "anyOf", children: [] };
        insert(tree, anyOf);
        parents.set(anyOf, tree);
        const p: GlobNode & { children: GlobNode[] } = { kind: "pattern", children: [] };
        insert(anyOf, p);
        parents.set(p, anyOf);
        tree = p;
        break;
      }
      case "separator": {
        const anyOf = parents.get(tree)!;
        const p: GlobNode & { children: GlobNode[] } = { kind: "pattern", children: [] };
        insert(anyOf, p);
        parents.set(p, anyOf);
        tree = p;
        break;
      }
      case "termsClose":
        tree = parents.get(parents.get(tree)!)!;
        break;
      default:
        throw new GlobSyntaxError(`unexpected token: ${token.type}<${JSON.stringify(token.raw)}>`);
    }
  }
}

function parseRange(lex: Lexer): GlobNode {
  let not = false;
  let lo = 0;
  let hi = 0;
  let chars = "";
  for (;;) {
    const token = lex.next();
    switch (token.type) {
      case "eof":
        throw new GlobSyntaxError("unexpected end");
      case "error":
        throw new GlobSyntaxError(token.raw);
      case "not":
        not = true;
        break;
      case "rangeLo":
        lo = token.raw.codePointAt(0)!;
        break;
      case "rangeHi":
        hi = token.raw.codePointAt(0)!;
        if (hi < lo) throw new GlobSyntaxError(`hi character '${token.raw}' should be greater than lo '${String.fromCodePoint(lo)}'`);
        break;
      case "text":
        chars = token.raw;
        break;
      case "rangeClose": {
        const isRange = lo !== 0 && hi !== 0;
        if ((chars !== "") === isRange) throw new GlobSyntaxError("could not parse range");
        return isRange ? { kind: "range", lo, hi, not } : { kind: "list", chars, not };
      }
      default:
        break;
    }
  }
}
