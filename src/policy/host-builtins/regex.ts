/** OPA's regex builtins over RE2 patterns (re2.ts, linear time), with Go's match iteration. */
import { builtinError } from "./errors.js";
import { intOperand, stringOperand } from "./operands.js";
import { globsMatch } from "./globs-match.js";
import { compileRe2, isValidRe2 } from "./re2.js";
import type { Re2 } from "./re2.js";
import { goQuote } from "./go-quote.js";

/**
 * Go's `FindAllStringSubmatchIndex(s, n)`: non-overlapping matches, an empty match right
 * after a match skipped; each as [start, end, group1 start, group1 end, ...] in UTF-16
 * offsets, -1 for a group that did not take part.
 */
function allMatchIndexes(re: Re2, s: string, n: number): number[][] {
  return (re.re2().findAllSubmatchIndex(s, n < 0 ? -1 : n) as number[][] | null) ?? [];
}

const group = (s: string, m: readonly number[], i: number): string => (m[2 * i]! >= 0 ? s.slice(m[2 * i], m[2 * i + 1]) : "");

export function regexMatch(pattern: unknown, value: unknown): boolean {
  const p = stringOperand(pattern, 1);
  const v = stringOperand(value, 2);
  return compileRe2(p).test(v);
}

export function regexIsValid(pattern: unknown): boolean {
  return typeof pattern === "string" && isValidRe2(pattern);
}

export function regexFindN(pattern: unknown, value: unknown, n: unknown): string[] {
  const p = stringOperand(pattern, 1);
  const v = stringOperand(value, 2);
  const count = intOperand(n, 3);
  return allMatchIndexes(compileRe2(p), v, count).map((m) => v.slice(m[0], m[1]));
}

export function regexFindAllStringSubmatchN(pattern: unknown, value: unknown, n: unknown): string[][] {
  const p = stringOperand(pattern, 1);
  const v = stringOperand(value, 2);
  const count = intOperand(n, 3);
  return allMatchIndexes(compileRe2(p), v, count).map((m) => Array.from({ length: m.length / 2 }, (_, i) => group(v, m, i)));
}

/** Go's `Regexp.Split(s, -1)`. */
export function regexSplit(pattern: unknown, value: unknown): string[] {
  const p = stringOperand(pattern, 1);
  const s = stringOperand(value, 2);
  if (s === "") return [""];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of allMatchIndexes(compileRe2(p), s, -1)) {
    end = m[0]!;
    if (m[1] !== 0) out.push(s.slice(beg, end));
    beg = m[1]!;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** Go's `extract` number rule: digits only, below 1e8, no leading zero; else -1 (a name). */
function groupNumber(name: string): number {
  if (!/^[0-9]+$/.test(name) || (name.length > 1 && name[0] === "0") || name.length > 8) return -1;
  return Number(name);
}

/** Go's `Regexp.Expand` template: `$1`, `$name`, `${name}`, `$$`; an unknown group is empty. */
function expand(template: string, s: string, m: readonly number[], names: Readonly<Record<string, number>>): string {
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
      if (close < 0 || !/^[\p{L}\p{Nd}_]+$/u.test(inner)) { out += "$"; continue; }
      name = inner;
      next = close;
    } else {
      const w = /^[\p{L}\p{Nd}_]+/u.exec(template.slice(i + 1));
      if (w === null) { out += "$"; continue; }
      name = w[0];
      next = i + w[0].length;
    }
    const num = groupNumber(name);
    const index = num >= 0 ? num : (names[name] ?? -1);
    if (index >= 0 && 2 * index + 1 < m.length) out += group(s, m, index);
    i = next;
  }
  return out;
}

/** regex.replace(s, pattern, value): Go's `ReplaceAllString`. */
export function regexReplace(s: unknown, pattern: unknown, value: unknown): string {
  const str = stringOperand(s, 1);
  const p = stringOperand(pattern, 2);
  const tmpl = stringOperand(value, 3);
  const re = compileRe2(p);
  const names = re.namedGroups();
  let out = "";
  let last = 0;
  for (const m of allMatchIndexes(re, str, -1)) {
    out += str.slice(last, m[0]) + expand(tmpl, str, m, names);
    last = m[1]!;
  }
  return out + str.slice(last);
}

/** Go's `regexp.QuoteMeta`. */
const quoteMeta = (s: string): string => s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");

/** First-level delimiter pairs of a template as [start, end + 1] offsets (OPA's `delimiterIndices`). */
function delimiterIndices(s: string, open: string, close: string): number[] {
  const out: number[] = [];
  let level = 0;
  let at = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === open) {
      if (++level === 1) at = i;
    } else if (s[i] === close) {
      if (--level === 0) out.push(at, i + 1);
      else if (level < 0) throw builtinError(`unbalanced braces in ${goQuote(s)}`);
    }
  }
  if (level !== 0) throw builtinError(`unbalanced braces in ${goQuote(s)}`);
  return out;
}

/**
 * regex.template_match(template, value, start, end): OPA's template (from gorilla/mux):
 * text outside the delimiters is literal, each first-level `{...}` a Go regexp, the
 * whole anchored at both ends. Delimiters are one byte, as in Go.
 */
export function regexTemplateMatch(template: unknown, value: unknown, start: unknown, end: unknown): boolean {
  const tpl = stringOperand(template, 1);
  const v = stringOperand(value, 2);
  const open = stringOperand(start, 3);
  const close = stringOperand(end, 4);
  const bytes = (s: string): number => new TextEncoder().encode(s).length;
  if (bytes(open) !== 1) throw builtinError(`start delimiter has to be exactly one character long but is ${bytes(open)} long`);
  // OPA reports the start delimiter's length here too.
  if (bytes(close) !== 1) throw builtinError(`end delimiter has to be exactly one character long but is ${bytes(open)} long`);
  const idxs = delimiterIndices(tpl, open, close);
  let pattern = "^";
  let last = 0;
  for (let i = 0; i < idxs.length; i += 2) {
    const raw = tpl.slice(last, idxs[i]);
    last = idxs[i + 1]!;
    const part = tpl.slice(idxs[i]! + 1, last - 1);
    pattern += `${quoteMeta(raw)}(${part})`;
    compileRe2(`^${part}$`); // each part must be a regexp of its own, as OPA checks
  }
  pattern += `${quoteMeta(tpl.slice(last))}$`;
  return compileRe2(pattern).test(v);
}

export const regexBuiltins = {
  "regex.match": regexMatch,
  "regex.is_valid": regexIsValid,
  "regex.find_n": regexFindN,
  "regex.find_all_string_submatch_n": regexFindAllStringSubmatchN,
  "regex.split": regexSplit,
  "regex.replace": regexReplace,
  "regex.template_match": regexTemplateMatch,
  "regex.globs_match": globsMatch,
};
