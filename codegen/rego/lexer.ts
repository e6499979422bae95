/**
 * Rego tokenizer: source text -> token array. Whitespace and comments are dropped,
 * but each token records whether a newline or any whitespace preceded it, because
 * Rego separates body expressions by newlines and only continues a ref or call
 * when `.`, `[` or `(` follows without a space.
 */
import type { Comment } from "./ast.js";

export type TokenKind = "ident" | "number" | "string" | "rawstring" | "template" | "punct" | "eof" | "illegal";

/**
 * A literal piece of a template string (`$"a{x}b"`, `` $`a{x}b` ``): the text from
 * `$"` or from a `}` closing an interpolation, up to the next `{` or the closing quote.
 * The tokens of each interpolated expression lie between two pieces.
 */
export interface TemplatePiece {
  readonly raw: boolean;
  /** Starts the template (`$"` / `` $` ``); otherwise it follows an interpolation's `}`. */
  readonly first: boolean;
  /** Ends the template (closing quote); otherwise an interpolation (`{`) follows. */
  readonly last: boolean;
}

export interface Token {
  readonly kind: TokenKind;
  /** Source text; for strings the decoded value is in `value`. */
  readonly text: string;
  readonly value: string;
  readonly row: number;
  readonly col: number;
  readonly offset: number;
  /** A newline (or comment line) lies between this token and the previous one. */
  readonly nl: boolean;
  /** Any whitespace or comment lies between this token and the previous one. */
  readonly ws: boolean;
  /** Template string pieces (kind "template"; `value` is the decoded text), else null. */
  readonly template: TemplatePiece | null;
}

export interface LexResult {
  readonly tokens: Token[];
  readonly comments: Comment[];
  readonly errors: { message: string; row: number; col: number }[];
}

const PUNCT2 = new Set([":=", "==", "!=", "<=", ">="]);
const PUNCT1 = new Set([..."=<>+-*/%&|.,;:()[]{}"]);

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function lex(source: string, file: string): LexResult {
  const tokens: Token[] = [];
  const comments: Comment[] = [];
  const errors: { message: string; row: number; col: number }[] = [];
  let i = 0;
  let row = 1;
  let lineStart = 0;
  let nl = false;
  let ws = false;
  const n = source.length;

  const push = (kind: TokenKind, start: number, end: number, value: string, sRow: number, sCol: number, template: TemplatePiece | null = null): void => {
    tokens.push({ kind, text: source.slice(start, end), value, row: sRow, col: sCol, offset: start, nl, ws, template });
    nl = false;
    ws = false;
  };
  // Open template strings, innermost last; `depth` counts the braces opened inside
  // the current interpolation, so only its own `}` resumes the template text.
  const templates: { raw: boolean; depth: number }[] = [];
  /**
   * Scans template text from `from` (just after `$"`, `` $` `` or `}`) into a token;
   * returns where the scan ended. Takes and returns the position instead of writing
   * the loop's variables, which keeps those out of the closure.
   */
  const templatePiece = (start: number, from: number, raw: boolean, first: boolean, atRow: number, atLineStart: number): { end: number; row: number; lineStart: number } => {
    const sCol = start - atLineStart + 1;
    const r = scanTemplateText(source, from, raw);
    let endRow = atRow;
    let endLineStart = atLineStart;
    for (const nlAt of r.newlines) { endRow++; endLineStart = nlAt + 1; }
    if (r.error !== null) {
      errors.push({ message: r.error, row: r.errorAt === null ? atRow : endRow, col: r.errorAt === null ? sCol : r.errorAt - endLineStart + 1 });
      push("illegal", start, r.end, r.value, atRow, sCol);
      templates.pop();
    } else {
      push("template", start, r.end, r.value, atRow, sCol, { raw, first, last: r.last });
      if (r.last) templates.pop();
    }
    return { end: r.end, row: endRow, lineStart: endLineStart };
  };

  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === 10) {
      i++; row++; lineStart = i; nl = true; ws = true;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 0xfeff) {
      i++; ws = true;
      continue;
    }
    const col = i - lineStart + 1;
    if (c === 35) { // '#': comment to end of line
      let j = i + 1;
      while (j < n && source.charCodeAt(j) !== 10) j++;
      comments.push({ text: source.slice(i + 1, j), location: { file, row, col } });
      i = j; ws = true;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(source.charCodeAt(j))) j++;
      push("ident", i, j, source.slice(i, j), row, col);
      i = j;
      continue;
    }
    if (isDigit(c)) {
      let j = i;
      while (j < n && isDigit(source.charCodeAt(j))) j++;
      if (source.charCodeAt(j) === 46 && isDigit(source.charCodeAt(j + 1))) {
        j++;
        while (j < n && isDigit(source.charCodeAt(j))) j++;
      }
      const e = source.charCodeAt(j);
      if (e === 101 || e === 69) {
        let k = j + 1;
        const s = source.charCodeAt(k);
        if (s === 43 || s === 45) k++;
        if (isDigit(source.charCodeAt(k))) {
          while (k < n && isDigit(source.charCodeAt(k))) k++;
          j = k;
        }
      }
      const text = source.slice(i, j);
      if (j < n && isIdentStart(source.charCodeAt(j))) {
        errors.push({ message: `illegal number format: ${text}${source[j]}`, row, col });
      }
      push("number", i, j, text, row, col);
      i = j;
      continue;
    }
    if (c === 34) { // '"'
      const r = scanString(source, i);
      if (r.error !== null) errors.push({ message: r.error, row, col });
      push(r.error === null ? "string" : "illegal", i, r.end, r.value, row, col);
      i = r.end;
      continue;
    }
    if (c === 96) { // '`' raw string, may span lines
      let j = i + 1;
      const sRow = row;
      while (j < n && source.charCodeAt(j) !== 96) {
        if (source.charCodeAt(j) === 10) { row++; lineStart = j + 1; }
        j++;
      }
      if (j >= n) {
        errors.push({ message: "non-terminated raw string", row: sRow, col });
        push("illegal", i, n, "", sRow, col);
        i = n;
        continue;
      }
      push("rawstring", i, j + 1, source.slice(i + 1, j), sRow, col);
      i = j + 1;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (PUNCT2.has(two)) {
      push("punct", i, i + 2, two, row, col);
      i += 2;
      continue;
    }
    const one = source[i] as string;
    const open = templates.length === 0 ? undefined : templates[templates.length - 1];
    if (open !== undefined && (c === 123 || c === 125)) {
      if (one === "{") open.depth++;
      else if (open.depth > 0) open.depth--;
      else {
        // The `}` closing an interpolation: the template text goes on.
        ({ end: i, row, lineStart } = templatePiece(i, i + 1, open.raw, false, row, lineStart));
        continue;
      }
    }
    if (PUNCT1.has(one)) {
      push("punct", i, i + 1, one, row, col);
      i++;
      continue;
    }
    if (c === 36 && (source[i + 1] === '"' || source[i + 1] === "`")) {
      const raw = source[i + 1] === "`";
      templates.push({ raw, depth: 0 });
      ({ end: i, row, lineStart } = templatePiece(i, i + 2, raw, true, row, lineStart));
      continue;
    }
    if (c === 36) {
      errors.push({ message: 'illegal token "$"', row, col });
      push("illegal", i, i + 1, "$", row, col);
      i++;
      continue;
    }
    const cp = source.codePointAt(i) ?? c;
    const width = cp > 0xffff ? 2 : 1;
    errors.push({ message: `illegal token ${JSON.stringify(source.slice(i, i + width))}`, row, col });
    push("illegal", i, i + width, source.slice(i, i + width), row, col);
    i += width;
  }
  tokens.push({ kind: "eof", text: "", value: "", row, col: i - lineStart + 1, offset: n, nl, ws, template: null });
  return { tokens, comments, errors };
}

/** Scans a JSON-style double-quoted string; after a bad escape it still skips to the closing quote. */
function scanString(source: string, start: number): { end: number; value: string; error: string | null } {
  const r = scanStringRaw(source, start);
  if (r.error === null || r.error === "non-terminated string") return r;
  let j = r.end;
  while (j < source.length && source[j] !== '"' && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1;
  return { ...r, end: source[j] === '"' ? j + 1 : Math.min(j, source.length) };
}

function scanStringRaw(source: string, start: number): { end: number; value: string; error: string | null } {
  let j = start + 1;
  let out = "";
  const n = source.length;
  while (j < n) {
    const c = source.charCodeAt(j);
    if (c === 34) return { end: j + 1, value: out, error: null };
    if (c === 10) return { end: j, value: out, error: "non-terminated string" };
    if (c < 0x20 && c !== 9) return { end: j + 1, value: out, error: "illegal control character in string" };
    if (c === 92) {
      const e = source[j + 1];
      switch (e) {
        case '"': out += '"'; break;
        case "\\": out += "\\"; break;
        case "/": out += "/"; break;
        case "b": out += "\b"; break;
        case "f": out += "\f"; break;
        case "n": out += "\n"; break;
        case "r": out += "\r"; break;
        case "t": out += "\t"; break;
        case "u": {
          const hex = source.slice(j + 2, j + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) return { end: Math.min(j + 2, n), value: out, error: "illegal unicode escape in string" };
          out += String.fromCharCode(parseInt(hex, 16));
          j += 6;
          continue;
        }
        default:
          return { end: Math.min(j + 2, n), value: out, error: `illegal escape sequence \\${e ?? ""} in string` };
      }
      j += 2;
      continue;
    }
    let k = j + 1;
    while (k < n) {
      const d = source.charCodeAt(k);
      if (d === 34 || d === 92 || d < 0x20) break;
      k++;
    }
    out += source.slice(j, k);
    j = k;
  }
  return { end: n, value: out, error: "non-terminated string" };
}

interface TemplateText {
  readonly end: number;
  readonly value: string;
  /** The closing quote ended the text (else an interpolation's `{` did). */
  readonly last: boolean;
  readonly error: string | null;
  /** Offset of the error when it is not at the token's start. */
  readonly errorAt: number | null;
  /** Offsets of the newlines crossed (raw templates may span lines). */
  readonly newlines: readonly number[];
}

/**
 * Template text up to `{` or the closing quote, as OPA's scanner reads it: `\{` is a
 * literal brace in both forms; `$"..."` also decodes the JSON escapes and ends at a
 * newline with an error; `` $`...` `` keeps every other character as written.
 */
function scanTemplateText(source: string, from: number, raw: boolean): TemplateText {
  const close = raw ? 96 : 34;
  const newlines: number[] = [];
  let out = "";
  let j = from;
  const n = source.length;
  while (j < n) {
    const c = source.charCodeAt(j);
    if (c === close) return { end: j + 1, value: out, last: true, error: null, errorAt: null, newlines };
    if (c === 123) return { end: j + 1, value: out, last: false, error: null, errorAt: null, newlines };
    if (c === 92 && source[j + 1] === "{") { out += "{"; j += 2; continue; }
    if (raw) {
      if (c === 10) newlines.push(j);
      out += source[j];
      j++;
      continue;
    }
    if (c === 10) return { end: j, value: out, last: false, error: "non-terminated template string", errorAt: null, newlines };
    if (c < 0x20 && c !== 9) return { end: j + 1, value: out, last: false, error: "illegal control character in string", errorAt: j, newlines };
    if (c === 92) {
      // A JSON escape: decode it as a one-escape string.
      const e = source[j + 1];
      const len = e === "u" ? 6 : 2;
      const r = scanStringRaw(`"${source.slice(j, j + len)}"`, 0);
      if (r.error !== null) return { end: Math.min(j + len, n), value: out, last: false, error: r.error, errorAt: j, newlines };
      out += r.value;
      j += len;
      continue;
    }
    out += source[j];
    j++;
  }
  return { end: n, value: out, last: false, error: raw ? "non-terminated raw template string" : "non-terminated template string", errorAt: null, newlines };
}
