/**
 * RE2 (Go regexp) syntax -> a JavaScript RegExp with the `u` flag, so that OPA's
 * regex builtins behave as in Go: Go-only syntax is translated (`(?i)` prefix flags,
 * `(?P<name>`, `\A`, `\z`, `\Q..\E`, POSIX classes, `\pL`), Perl-only syntax Go
 * rejects (backreferences, lookaround) is rejected, and Go's ASCII `\s` is kept.
 * Compiled expressions are cached, as OPA caches them.
 */
import { builtinError } from "./errors.js";

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", ascii: "\\x00-\\x7F", blank: "\\t ", cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9", graph: "!-~", lower: "a-z", print: " -~", punct: "!-\\/:-@\\[-`\\{-~",
  space: "\\t\\n\\v\\f\\r ", upper: "A-Z", word: "0-9A-Za-z_", xdigit: "0-9A-Fa-f",
};
const SYNTAX = new Set("^$\\.*+?()[]{}|/");
const MAX_REPEAT = 1000;

export class RegexSyntaxError extends Error {
  override name = "RegexSyntaxError";
}

function fail(msg: string, pattern: string): never {
  throw new RegexSyntaxError(`error parsing regexp: ${msg}: \`${pattern}\``);
}

/** A literal character, escaped for a JS `u` pattern. */
function lit(ch: string): string {
  if (SYNTAX.has(ch)) return "\\" + ch;
  if (/[A-Za-z0-9_\s]/.test(ch) || ch.codePointAt(0)! >= 0x80 || /[!"#%&',:;<=>@`~]/.test(ch)) {
    return ch === "\n" ? "\\n" : ch === "\t" ? "\\t" : ch === "\r" ? "\\r" : ch;
  }
  return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
}

/** Translates one escape starting at `pattern[i] === "\\"`; returns [js, nextIndex]. */
function escape(pattern: string, i: number, inClass: boolean): [string, number] {
  const c = pattern[i + 1];
  if (c === undefined) fail("trailing backslash at end of expression", "");
  switch (c) {
    case "d": case "D": case "w": case "W": case "n": case "t": case "r": case "f": case "v":
      return ["\\" + c, i + 2];
    case "s":
      return [inClass ? "\\t\\n\\f\\r " : "[\\t\\n\\f\\r ]", i + 2];
    case "S":
      return [inClass ? "\\S" : "[^\\t\\n\\f\\r ]", i + 2];
    case "b": case "B":
      if (inClass) fail("invalid escape sequence", "\\" + c);
      return ["\\" + c, i + 2];
    case "A":
      return ["(?<![\\s\\S])", i + 2];
    case "z":
      return ["(?![\\s\\S])", i + 2];
    case "a":
      return ["\\x07", i + 2];
    case "x": {
      if (pattern[i + 2] === "{") {
        const end = pattern.indexOf("}", i + 3);
        if (end < 0) fail("invalid escape sequence", "\\x{");
        return [`\\u{${pattern.slice(i + 3, end)}}`, end + 1];
      }
      return [`\\x${pattern.slice(i + 2, i + 4)}`, i + 4];
    }
    case "p": case "P": {
      if (pattern[i + 2] === "{") {
        const end = pattern.indexOf("}", i + 3);
        if (end < 0) fail("invalid character class range", pattern.slice(i));
        return [`\\${c}{${pattern.slice(i + 3, end)}}`, end + 1];
      }
      return [`\\${c}{${pattern[i + 2] ?? ""}}`, i + 3];
    }
    default:
      if (/[0-9]/.test(c)) {
        if (c === "0") return ["\\x00", i + 2];
        fail("invalid escape sequence", "\\" + c); // backreferences: Go has none
      }
      if (/[A-Za-z]/.test(c)) fail("invalid escape sequence", "\\" + c);
      return [lit(c), i + 2];
  }
}

/** `[...]` starting at `pattern[i] === "["`. */
function charClass(pattern: string, i: number): [string, number] {
  let out = "[";
  let j = i + 1;
  if (pattern[j] === "^") { out += "^"; j++; }
  let first = true;
  for (;;) {
    const ch = pattern[j];
    if (ch === undefined) fail("missing closing ]", pattern.slice(i));
    if (ch === "]" && !first) return [out + "]", j + 1];
    first = false;
    if (ch === "[" && pattern[j + 1] === ":") {
      const end = pattern.indexOf(":]", j + 2);
      if (end > 0) {
        let name = pattern.slice(j + 2, end);
        const negate = name.startsWith("^");
        if (negate) name = name.slice(1);
        const set = POSIX[name];
        if (set === undefined) fail("invalid character class range", pattern.slice(j, end + 2));
        if (negate) fail("unsupported negated POSIX class", pattern.slice(j, end + 2));
        out += set;
        j = end + 2;
        continue;
      }
    }
    if (ch === "\\") {
      const [js, next] = escape(pattern, j, true);
      out += js;
      j = next;
      continue;
    }
    if (ch === "-" && pattern[j + 1] !== "]" && out.length > 1 && !out.endsWith("[^")) { out += "-"; j++; continue; }
    const cp = pattern.codePointAt(j)!;
    const s = String.fromCodePoint(cp);
    out += s === "-" || s === "[" || s === "]" || s === "^" ? "\\" + s : lit(s);
    j += s.length;
  }
}

function translate(pattern: string): { source: string; flags: string } {
  let flags = "u";
  let i = 0;
  // Go's flag group at the start applies to the whole expression.
  const lead = /^\(\?([imsU]+)\)/.exec(pattern);
  if (lead !== null) {
    for (const f of lead[1]!) {
      if (f === "U") fail("ungreedy flag not supported", pattern);
      if (!flags.includes(f)) flags += f;
    }
    i = lead[0].length;
  }
  let out = "";
  let depth = 0;
  let canRepeat = false;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      if (pattern[i + 1] === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        const quoted = pattern.slice(i + 2, end < 0 ? pattern.length : end);
        out += [...quoted].map(lit).join("");
        i = end < 0 ? pattern.length : end + 2;
        canRepeat = quoted.length > 0;
        continue;
      }
      const [js, next] = escape(pattern, i, false);
      out += js;
      i = next;
      canRepeat = true;
    } else if (ch === "[") {
      const [js, next] = charClass(pattern, i);
      out += js;
      i = next;
      canRepeat = true;
    } else if (ch === "(") {
      if (pattern[i + 1] === "?") {
        const rest = pattern.slice(i + 2);
        if (rest.startsWith("P<")) { out += "(?<"; i += 4; }
        else if (rest.startsWith(":")) { out += "(?:"; i += 3; }
        else if (/^<[A-Za-z_]/.test(rest)) { out += "(?<"; i += 3; }
        else fail("invalid or unsupported Perl syntax", pattern.slice(i, i + 3));
      } else { out += "("; i++; }
      depth++;
      canRepeat = false;
    } else if (ch === ")") {
      if (depth === 0) fail("unexpected )", pattern);
      depth--; out += ")"; i++; canRepeat = true;
    } else if (ch === "*" || ch === "+" || ch === "?") {
      if (!canRepeat) fail("missing argument to repetition operator", ch);
      out += ch; i++;
      if (pattern[i] === "?") { out += "?"; i++; }
      if (pattern[i] === "*" || pattern[i] === "+" || (pattern[i] === "?" )) fail("invalid nested repetition operator", pattern.slice(i - 1, i + 1));
      canRepeat = false;
    } else if (ch === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (m === null) { out += "\\{"; i++; canRepeat = true; continue; }
      if (!canRepeat) fail("missing argument to repetition operator", m[0]);
      const lo = Number(m[1]);
      const hi = m[3] === undefined || m[3] === "" ? lo : Number(m[3]);
      if (lo > MAX_REPEAT || hi > MAX_REPEAT || (m[3] !== undefined && m[3] !== "" && hi < lo)) fail("invalid repeat count", m[0]);
      out += m[0]; i += m[0].length;
      if (pattern[i] === "?") { out += "?"; i++; }
      canRepeat = false;
    } else if (ch === "}" || ch === "]") {
      out += "\\" + ch; i++; canRepeat = true;
    } else if (ch === "|" || ch === "^" || ch === "$" || ch === ".") {
      out += ch; i++; canRepeat = ch === "."; 
      if (ch === "^" || ch === "$") canRepeat = true;
    } else {
      const s = String.fromCodePoint(pattern.codePointAt(i)!);
      out += lit(s); i += s.length; canRepeat = true;
    }
  }
  if (depth !== 0) fail("missing closing )", pattern);
  return { source: out, flags };
}

const cache = new Map<string, RegExp>();
const CACHE_MAX = 100;

/** Compiles a Go regexp; throws a builtin error with Go's "error parsing regexp" text. */
export function compileRe2(pattern: string, global = false): RegExp {
  const key = (global ? "g" : "-") + pattern;
  let re = cache.get(key);
  if (re !== undefined) return re;
  let t: { source: string; flags: string };
  try {
    t = translate(pattern);
    re = new RegExp(t.source, t.flags + (global ? "g" : ""));
  } catch (e) {
    throw builtinError(e instanceof RegexSyntaxError ? e.message : `error parsing regexp: ${String((e as Error).message)}`);
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, re);
  return re;
}
