/** OPA's regex builtins over RE2 patterns translated by re2.ts, with Go's match iteration. */
import { intOperand, stringOperand } from "./operands.js";
import { globsMatch } from "./globs-match.js";
import { compileRe2 } from "./re2.js";

/** Go's `allMatches`: non-overlapping, and an empty match right after a match is skipped. */
function allMatches(re: RegExp, s: string, n: number): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let pos = 0;
  let prevEnd = -1;
  while ((n < 0 || out.length < n) && pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    let accept = true;
    if (end === start) {
      if (start === prevEnd) accept = false;
      const cp = s.codePointAt(start);
      pos = start + (cp === undefined ? 1 : cp > 0xffff ? 2 : 1);
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(m);
  }
  return out;
}

export function regexMatch(pattern: unknown, value: unknown): boolean {
  const p = stringOperand(pattern, 1);
  const v = stringOperand(value, 2);
  return compileRe2(p).test(v);
}

export function regexIsValid(pattern: unknown): boolean {
  if (typeof pattern !== "string") return false;
  try {
    compileRe2(pattern);
    return true;
  } catch {
    return false;
  }
}

export function regexFindN(pattern: unknown, value: unknown, n: unknown): string[] {
  const p = stringOperand(pattern, 1);
  const v = stringOperand(value, 2);
  const count = intOperand(n, 3);
  return allMatches(compileRe2(p, true), v, count).map((m) => m[0]);
}

export function regexFindAllStringSubmatchN(pattern: unknown, value: unknown, n: unknown): string[][] {
  const p = stringOperand(pattern, 1);
  const v = stringOperand(value, 2);
  const count = intOperand(n, 3);
  return allMatches(compileRe2(p, true), v, count).map((m) => [...m].map((g) => g ?? ""));
}

/** Go's `Regexp.Split(s, -1)`. */
export function regexSplit(pattern: unknown, value: unknown): string[] {
  const p = stringOperand(pattern, 1);
  const s = stringOperand(value, 2);
  if (s === "") return [""];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of allMatches(compileRe2(p, true), s, -1)) {
    end = m.index;
    const mEnd = m.index + m[0].length;
    if (mEnd !== 0) out.push(s.slice(beg, end));
    beg = mEnd;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** Go's `Regexp.Expand` template: `$1`, `$name`, `${name}`, `$$`. */
function expand(template: string, m: RegExpExecArray): string {
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== "$") { out += c; continue; }
    if (template[i + 1] === "$") { out += "$"; i++; continue; }
    let name: string;
    let next: number;
    if (template[i + 1] === "{") {
      const close = template.indexOf("}", i + 2);
      const inner = close < 0 ? "" : template.slice(i + 2, close);
      if (close < 0 || !/^\w+$/.test(inner)) { out += "$"; continue; }
      name = inner;
      next = close;
    } else {
      const w = /^\w+/.exec(template.slice(i + 1));
      if (w === null) { out += "$"; continue; }
      name = w[0];
      next = i + w[0].length;
    }
    if (/^\d+$/.test(name)) out += m[Number(name)] ?? "";
    else out += m.groups?.[name] ?? "";
    i = next;
  }
  return out;
}

/** regex.replace(s, pattern, value): Go's `ReplaceAllString`. */
export function regexReplace(s: unknown, pattern: unknown, value: unknown): string {
  const str = stringOperand(s, 1);
  const p = stringOperand(pattern, 2);
  const tmpl = stringOperand(value, 3);
  let out = "";
  let last = 0;
  for (const m of allMatches(compileRe2(p, true), str, -1)) {
    out += str.slice(last, m.index) + expand(tmpl, m);
    last = m.index + m[0].length;
  }
  return out + str.slice(last);
}

export const regexBuiltins = {
  "regex.match": regexMatch,
  "regex.is_valid": regexIsValid,
  "regex.find_n": regexFindN,
  "regex.find_all_string_submatch_n": regexFindAllStringSubmatchN,
  "regex.split": regexSplit,
  "regex.replace": regexReplace,
  "regex.globs_match": globsMatch,
};
