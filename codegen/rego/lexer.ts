/**
 * Rego tokenizer: source text -> token array. Whitespace and comments are dropped,
 * but each token records whether a newline or any whitespace preceded it, because
 * Rego separates body expressions by newlines and only continues a ref or call
 * when `.`, `[` or `(` follows without a space.
 */
import type { Comment } from "./ast.js";

export type TokenKind = "ident" | "number" | "string" | "rawstring" | "punct" | "eof" | "illegal";

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

  const push = (kind: TokenKind, start: number, end: number, value: string, sRow: number, sCol: number): void => {
    tokens.push({ kind, text: source.slice(start, end), value, row: sRow, col: sCol, offset: start, nl, ws });
    nl = false;
    ws = false;
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
    if (PUNCT1.has(one)) {
      push("punct", i, i + 1, one, row, col);
      i++;
      continue;
    }
    if (c === 36 && (source[i + 1] === '"' || source[i + 1] === "`")) {
      errors.push({ message: "template strings ($\"...\", string interpolation of OPA 1.12) are not supported yet", row, col });
    } else if (c === 36) {
      errors.push({ message: 'illegal token "$"', row, col });
    }
    if (c === 36) {
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
  tokens.push({ kind: "eof", text: "", value: "", row, col: i - lineStart + 1, offset: n, nl, ws });
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
