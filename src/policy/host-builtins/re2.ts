/**
 * RE2 (Go regexp) syntax -> a JavaScript RegExp with the `u` flag, so that OPA's
 * regex builtins behave as in Go. The pattern is parsed as Go's regexp/syntax
 * parses it (Perl flags) and re-emitted in JavaScript terms:
 * - character classes are emitted as explicit ranges, so Go's `[\w-.]` (a class
 *   escape followed by a literal `-`), `[[:alpha:]]`, `[[:^digit:]]` and `[\S]`
 *   mean what they mean in Go;
 * - Go's ASCII `\s`, its `.` (everything but `\n`), `^`/`$` under `(?m)` (only
 *   `\n` ends a line), `\A`, `\z`, `\Q..\E`, octal and `\x{...}` escapes,
 *   `(?P<name>...)`, `\pL`, `\p{Greek}` (a script), `(?s)`, `(?m)` and `(?U)`
 *   (also as `(?flags:...)` groups and mid-expression) are translated;
 * - `(?i)` is the `i` flag when it covers the whole expression; over only a part
 *   JavaScript cannot express it (Node 20 has no modifier groups): an error naming it;
 * - Perl-only syntax Go rejects (backreferences, lookaround, `\Z`) is rejected with
 *   Go's "error parsing regexp" text.
 * Compiled expressions are cached, as OPA caches them.
 */
import { builtinError } from "./errors.js";

type Ranges = readonly (readonly [number, number])[];

const cp = (s: string): number => s.codePointAt(0)!;
const ASCII_RANGES = (spec: string): Ranges => {
  // "0-9A-Z_" style specs of ASCII ranges.
  const out: [number, number][] = [];
  for (let i = 0; i < spec.length; i++) {
    if (spec[i + 1] === "-" && i + 2 < spec.length) {
      out.push([cp(spec[i]!), cp(spec[i + 2]!)]);
      i += 2;
    } else out.push([cp(spec[i]!), cp(spec[i]!)]);
  }
  return out;
};

const POSIX: Record<string, Ranges> = {
  alnum: ASCII_RANGES("0-9A-Za-z"), alpha: ASCII_RANGES("A-Za-z"), ascii: [[0, 0x7f]], blank: ASCII_RANGES("\t "),
  cntrl: [[0, 0x1f], [0x7f, 0x7f]], digit: ASCII_RANGES("0-9"), graph: ASCII_RANGES("!-~"), lower: ASCII_RANGES("a-z"),
  print: ASCII_RANGES(" -~"), punct: ASCII_RANGES("!-/:-@[-`{-~"), space: ASCII_RANGES("\t-\r "), upper: ASCII_RANGES("A-Z"),
  word: ASCII_RANGES("0-9A-Za-z_"), xdigit: ASCII_RANGES("0-9A-Fa-f"),
};
/** Go's Perl classes (ASCII only). */
const PERL: Record<string, Ranges> = {
  d: ASCII_RANGES("0-9"), s: ASCII_RANGES("\t\n\f\r "), w: ASCII_RANGES("0-9A-Za-z_"),
};
/** Unicode general categories: `\p{Lu}` in both; any other name is a script in Go. */
const CATEGORIES = new Set(
  "C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs".split(" "),
);
const MAX_RUNE = 0x10ffff;
const MAX_REPEAT = 1000;

export class RegexSyntaxError extends Error {
  override name = "RegexSyntaxError";
}

function fail(msg: string, what: string): never {
  throw new RegexSyntaxError(`error parsing regexp: ${msg}: \`${what}\``);
}

function complement(r: Ranges): [number, number][] {
  const sorted = [...r].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_RUNE) out.push([next, MAX_RUNE]);
  return out;
}

/** A code point inside a JS `u` class or outside one: ASCII alphanumerics as is, all else as `\u{..}`. */
function atom(c: number): string {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f ? String.fromCodePoint(c) : `\\u{${c.toString(16)}}`;
}

const rangesJs = (r: Ranges): string => r.map(([lo, hi]) => (lo === hi ? atom(lo) : `${atom(lo)}-${atom(hi)}`)).join("");

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

/** One RE2 pattern being translated. */
class Translator {
  private i = 0;
  private out = "";
  /** The `i` state at each case-sensitive atom: JS has one `i` flag for the whole expression. */
  private readonly caseStates = new Set<boolean>();
  private caseWhere = "";

  constructor(private readonly p: string) {}

  run(): { source: string; flags: string } {
    this.sequence({ i: false, m: false, s: false, U: false }, 0);
    if (this.caseStates.size > 1) fail("case-insensitive flag over part of the expression is not supported (JavaScript has no modifier groups)", this.caseWhere);
    return { source: this.out, flags: this.caseStates.has(true) ? "ui" : "u" };
  }

  private cased(f: Flags): void {
    this.caseStates.add(f.i);
    if (f.i && this.caseWhere === "") this.caseWhere = this.p;
  }

  /** Parses until `)` (depth > 0) or the end; flags set by `(?x)` last to the end of this group. */
  private sequence(outer: Flags, depth: number): void {
    const f: Flags = { ...outer };
    let canRepeat = false;
    const p = this.p;
    while (this.i < p.length) {
      const ch = p[this.i]!;
      if (ch === ")") {
        if (depth === 0) fail("unexpected )", p);
        return;
      }
      if (ch === "\\") {
        if (p[this.i + 1] === "Q") {
          const end = p.indexOf("\\E", this.i + 2);
          const quoted = p.slice(this.i + 2, end < 0 ? p.length : end);
          this.i = end < 0 ? p.length : end + 2;
          // Each quoted char stays an atom: a following `*` repeats only the last.
          this.out += [...quoted].map((c) => this.literal(cp(c), f)).join("");
          canRepeat = quoted.length > 0;
          continue;
        }
        this.out += this.escapeOutside(f);
        canRepeat = true;
      } else if (ch === "[") {
        this.cased(f);
        this.out += this.charClass();
        canRepeat = true;
      } else if (ch === "(") {
        if (p[this.i + 1] === "?") {
          const rest = p.slice(this.i + 2);
          const flagGroup = /^([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
          if (rest.startsWith("P<") || /^<[A-Za-z0-9_]/.test(rest)) {
            const start = this.i + (rest.startsWith("P<") ? 4 : 3);
            const end = p.indexOf(">", start);
            const name = end < 0 ? "" : p.slice(start, end);
            if (!/^[A-Za-z0-9_]+$/.test(name)) fail("invalid named capture", p.slice(this.i, end < 0 ? p.length : end + 1));
            if (!/^[A-Za-z_]/.test(name)) fail("capture group name starting with a digit is not supported in JavaScript", name);
            this.out += `(?<${name}>`;
            this.i = end + 1;
            this.group(f, depth);
          } else if (flagGroup !== null && (flagGroup[1] !== "" || (flagGroup[2] ?? "") !== "" || flagGroup[3] === ":")) {
            if (flagGroup[2] === "") fail("invalid or unsupported Perl syntax", p.slice(this.i, this.i + 2 + flagGroup[0].length));
            const next: Flags = { ...f };
            for (const c of flagGroup[1]!) next[c as keyof Flags] = true;
            for (const c of flagGroup[2] ?? "") next[c as keyof Flags] = false;
            this.i += 2 + flagGroup[0].length;
            if (flagGroup[3] === ")") {
              Object.assign(f, next);
              canRepeat = false;
              continue;
            }
            this.out += "(?:";
            this.group(next, depth);
          } else fail("invalid or unsupported Perl syntax", p.slice(this.i, this.i + 3));
        } else {
          this.out += "(";
          this.i++;
          this.group(f, depth);
        }
        canRepeat = true;
      } else if (ch === "*" || ch === "+" || ch === "?") {
        if (!canRepeat) fail("missing argument to repetition operator", ch);
        this.i++;
        this.repeat(ch, f);
        canRepeat = false;
      } else if (ch === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(this.i));
        if (m === null) {
          this.cased(f);
          this.out += "\\{";
          this.i++;
          canRepeat = true;
          continue;
        }
        if (!canRepeat) fail("missing argument to repetition operator", m[0]);
        const lo = Number(m[1]);
        const hi = m[3] === undefined || m[3] === "" ? lo : Number(m[3]);
        if (lo > MAX_REPEAT || hi > MAX_REPEAT || (m[3] !== undefined && m[3] !== "" && hi < lo)) fail("invalid repeat count", m[0]);
        this.i += m[0].length;
        this.repeat(m[0], f);
        canRepeat = false;
      } else if (ch === "|") {
        this.out += "|";
        this.i++;
        canRepeat = false;
      } else if (ch === "^") {
        // No JS `m` flag is ever set: a bare `^`/`$` is the start/end of the text.
        this.out += f.m ? "(?<![^\\n])" : "^";
        this.i++;
        canRepeat = true;
      } else if (ch === "$") {
        this.out += f.m ? "(?![^\\n])" : "$";
        this.i++;
        canRepeat = true;
      } else if (ch === ".") {
        this.out += f.s ? "[\\s\\S]" : "[^\\n]";
        this.i++;
        canRepeat = true;
      } else {
        const c = cp(p.slice(this.i));
        this.i += c > 0xffff ? 2 : 1;
        this.out += this.literal(c, f);
        canRepeat = true;
      }
    }
    if (depth > 0) fail("missing closing )", p);
  }

  /** A literal character; only one with case variants depends on the `i` flag. */
  private literal(c: number, f: Flags): string {
    const s = String.fromCodePoint(c);
    if (s.toLowerCase() !== s.toUpperCase()) this.cased(f);
    return atom(c);
  }

  private group(f: Flags, depth: number): void {
    this.sequence(f, depth + 1);
    this.out += ")";
    this.i++;
  }

  /** A repetition operator `op` just read; an optional `?` flips greediness, as `(?U)` does. */
  private repeat(op: string, f: Flags): void {
    let lazy = false;
    if (this.p[this.i] === "?") {
      lazy = true;
      this.i++;
    }
    const next = this.p[this.i];
    if (next === "*" || next === "+" || next === "?" || (next === "{" && /^\{\d+(,\d*)?\}/.test(this.p.slice(this.i)))) {
      fail("invalid nested repetition operator", this.p.slice(this.i - op.length - (lazy ? 1 : 0), this.i + 1));
    }
    this.out += op + (lazy !== f.U ? "?" : "");
  }

  /** An escape outside a class, at `\`. */
  private escapeOutside(f: Flags): string {
    const c = this.p[this.i + 1];
    switch (c) {
      case "A":
        this.i += 2;
        return "^";
      case "z":
        this.i += 2;
        return "$";
      case "b":
      case "B":
        this.i += 2;
        return "\\" + c;
      case "d":
      case "w":
        this.cased(f);
        this.i += 2;
        return `[${rangesJs(PERL[c]!)}]`;
      case "s":
        this.i += 2;
        return `[${rangesJs(PERL.s!)}]`;
      case "D":
      case "S":
      case "W":
        this.cased(f);
        this.i += 2;
        return `[^${rangesJs(PERL[c.toLowerCase()]!)}]`;
      case "p":
      case "P":
        this.cased(f);
        return this.unicodeClass();
      default:
        return this.literal(this.escapeChar(), f);
    }
  }

  /** `\p{Name}`, `\p{^Name}`, `\pL`, `\P...` at `\`, as a JS class item. */
  private unicodeClass(): string {
    const p = this.p;
    let negate = p[this.i + 1] === "P";
    let name: string;
    if (p[this.i + 2] === "{") {
      const end = p.indexOf("}", this.i + 3);
      if (end < 0) fail("invalid character class range", p.slice(this.i));
      name = p.slice(this.i + 3, end);
      this.i = end + 1;
    } else {
      name = p[this.i + 2] ?? "";
      if (name === "") fail("invalid character class range", p.slice(this.i));
      this.i += 3;
    }
    if (name.startsWith("^")) {
      negate = !negate;
      name = name.slice(1);
    }
    if (!/^[A-Za-z_]+$/.test(name)) fail("invalid character class range", `\\p{${name}}`);
    const prop = name === "Any" || CATEGORIES.has(name) ? name : `Script=${name}`;
    return `\\${negate ? "P" : "p"}{${prop}}`;
  }

  /** A single-character escape at `\` (Go's parseEscape): returns its code point. */
  private escapeChar(): number {
    const p = this.p;
    const c = p[this.i + 1];
    if (c === undefined) fail("trailing backslash at end of expression", "");
    const at = this.i;
    this.i += 2;
    switch (c) {
      case "a": return 7;
      case "f": return 12;
      case "n": return 10;
      case "r": return 13;
      case "t": return 9;
      case "v": return 11;
      case "x": {
        if (p[this.i] === "{") {
          const end = p.indexOf("}", this.i + 1);
          const hex = end < 0 ? "" : p.slice(this.i + 1, end);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || parseInt(hex, 16) > MAX_RUNE) fail("invalid escape sequence", p.slice(at, end < 0 ? p.length : end + 1));
          this.i = end + 1;
          return parseInt(hex, 16);
        }
        const hex = p.slice(this.i, this.i + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) fail("invalid escape sequence", p.slice(at, this.i + 2));
        this.i += 2;
        return parseInt(hex, 16);
      }
      default:
        break;
    }
    if (c >= "0" && c <= "7") {
      // A single non-zero digit would be a backreference: Go has none.
      if (c !== "0" && !/[0-7]/.test(p[this.i] ?? "")) fail("invalid escape sequence", p.slice(at, this.i));
      let r = cp(c) - 48;
      for (let k = 1; k < 3 && /[0-7]/.test(p[this.i] ?? ""); k++) r = r * 8 + cp(p[this.i++]!) - 48;
      return r;
    }
    const code = cp(c);
    if (code < 0x80 && !/[A-Za-z0-9]/.test(c)) return code;
    fail("invalid escape sequence", p.slice(at, at + 1 + String.fromCodePoint(code).length));
  }

  /** `[...]` at `[` (Go's parseClass with Perl flags), as one JS class of explicit ranges. */
  private charClass(): string {
    const p = this.p;
    const start = this.i;
    this.i++;
    let negated = false;
    if (p[this.i] === "^") {
      negated = true;
      this.i++;
    }
    const items: string[] = [];
    let first = true;
    for (;;) {
      const ch = p[this.i];
      if (ch === undefined) fail("missing closing ]", p.slice(start));
      if (ch === "]" && !first) break;
      first = false;
      if (ch === "[" && p[this.i + 1] === ":") {
        const end = p.indexOf(":]", this.i + 2);
        if (end > 0) {
          let name = p.slice(this.i + 2, end);
          const negate = name.startsWith("^");
          if (negate) name = name.slice(1);
          const set = POSIX[name];
          if (set === undefined) fail("invalid character class range", p.slice(this.i, end + 2));
          items.push(rangesJs(negate ? complement(set) : set));
          this.i = end + 2;
          continue;
        }
      }
      if (ch === "\\") {
        const c = p[this.i + 1];
        if (c === "d" || c === "s" || c === "w" || c === "D" || c === "S" || c === "W") {
          const set = PERL[c.toLowerCase()]!;
          items.push(rangesJs(c === c.toLowerCase() ? set : complement(set)));
          this.i += 2;
          continue;
        }
        if (c === "p" || c === "P") {
          items.push(this.unicodeClass());
          continue;
        }
      }
      // A single character or a range: `-` after a class item above is a literal here.
      const lo = this.classChar();
      let hi = lo;
      if (p[this.i] === "-" && p[this.i + 1] !== undefined && p[this.i + 1] !== "]") {
        this.i++;
        const at = this.i;
        hi = this.classChar();
        if (hi < lo) fail("invalid character class range", p.slice(at - 1 - String.fromCodePoint(lo).length, this.i));
      }
      items.push(rangesJs([[lo, hi]]));
    }
    this.i++;
    return `[${negated ? "^" : ""}${items.join("")}]`;
  }

  /** One class character at `this.i` (a literal or a single-character escape). */
  private classChar(): number {
    const p = this.p;
    if (p[this.i] === "\\") {
      const c = p[this.i + 1];
      if (c === "b" || c === "B" || c === "A" || c === "z" || c === "Q") fail("invalid escape sequence", `\\${c}`);
      return this.escapeChar();
    }
    const c = cp(p.slice(this.i));
    this.i += c > 0xffff ? 2 : 1;
    return c;
  }
}

const cache = new Map<string, RegExp>();
const CACHE_MAX = 100;

/** The JavaScript source and flags for a Go regexp; throws RegexSyntaxError with Go's text. */
export function translateRe2(pattern: string): { source: string; flags: string } {
  return new Translator(pattern).run();
}

/** Compiles a Go regexp; throws a builtin error with Go's "error parsing regexp" text. */
export function compileRe2(pattern: string, global = false): RegExp {
  const key = (global ? "g" : "-") + pattern;
  let re = cache.get(key);
  if (re !== undefined) return re;
  try {
    const t = translateRe2(pattern);
    re = new RegExp(t.source, t.flags + (global ? "g" : ""));
  } catch (e) {
    throw builtinError(e instanceof RegexSyntaxError ? e.message : `error parsing regexp: ${String((e as Error).message)}`);
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, re);
  return re;
}
