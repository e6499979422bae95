/**
 * glob.match with the semantics of github.com/gobwas/glob, which OPA uses:
 * `*` any run of non-delimiter characters, `**` any run, `?` one non-delimiter
 * character, `[abc]` `[a-z]` `[!a-z]` classes, `{a,b}` alternatives (nested),
 * `\` escapes. Delimiters: null -> none, [] -> ["."] (OPA's defaults).
 * A pattern is compiled once into an anchored RE2 expression (re2js: linear-time
 * matching, so `*a*a*a*…b` cannot backtrack) and cached.
 */
import { RE2JS } from "re2js";
import { builtinError, operandTypeError } from "./errors.js";
import { stringOperand } from "./operands.js";

const reEscape = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

function compileGlob(pattern: string, delimiters: readonly string[]): RE2JS {
  const notSep = delimiters.length === 0 ? "[\\s\\S]" : `[^${delimiters.map(reEscape).join("")}]`;
  const chars = [...pattern];
  let i = 0;
  let depth = 0;
  let out = "";
  while (i < chars.length) {
    const c = chars[i]!;
    if (c === "\\") {
      const next = chars[i + 1];
      if (next === undefined) throw builtinError("unexpected end of input after escape");
      out += reEscape(next);
      i += 2;
    } else if (c === "*") {
      if (chars[i + 1] === "*") {
        out += "[\\s\\S]*";
        i += 2;
      } else {
        out += `${notSep}*`;
        i++;
      }
    } else if (c === "?") {
      out += notSep;
      i++;
    } else if (c === "[") {
      let j = i + 1;
      let cls = "[";
      if (chars[j] === "!") {
        cls += "^";
        j++;
      }
      let closed = false;
      let n = 0;
      while (j < chars.length) {
        const d = chars[j]!;
        if (d === "]") {
          closed = true;
          break;
        }
        if (chars[j + 1] === "-" && chars[j + 2] !== undefined && chars[j + 2] !== "]") {
          const hi = chars[j + 2]!;
          if (hi < d) throw builtinError(`invalid range: ${d}-${hi}`);
          cls += `${reEscape(d)}-${reEscape(hi)}`;
          j += 3;
        } else {
          cls += reEscape(d);
          j++;
        }
        n++;
      }
      if (!closed) throw builtinError("unexpected end of input: unclosed [");
      if (n === 0) throw builtinError("empty character class");
      out += cls + "]";
      i = j + 1;
    } else if (c === "{") {
      out += "(?:";
      depth++;
      i++;
    } else if (c === "}" && depth > 0) {
      out += ")";
      depth--;
      i++;
    } else if (c === "," && depth > 0) {
      out += "|";
      i++;
    } else {
      out += reEscape(c);
      i++;
    }
  }
  if (depth !== 0) throw builtinError("unexpected end of input: unclosed {");
  try {
    return RE2JS.compile(`^(?:${out})$`);
  } catch (e) {
    throw builtinError(e instanceof Error ? e.message : String(e));
  }
}

const cache = new Map<string, RE2JS>();

function cachedGlob(pattern: string, delimiters: readonly string[]): RE2JS {
  const key = `${pattern}-${delimiters.join("")}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = compileGlob(pattern, delimiters);
    if (cache.size >= 100) cache.delete(cache.keys().next().value as string);
    cache.set(key, re);
  }
  return re;
}

export function globMatch(pattern: unknown, delimiters: unknown, match: unknown): boolean {
  const p = stringOperand(pattern, 1);
  let delims: string[];
  if (delimiters === null) delims = [];
  else if (Array.isArray(delimiters)) {
    delims = delimiters.map((d) => {
      if (typeof d !== "string") throw operandTypeError(2, d, "string");
      return [...d][0] ?? "";
    }).filter((d) => d !== "");
    if (delims.length === 0) delims = ["."];
  } else throw operandTypeError(2, delimiters, "array", "null");
  const m = stringOperand(match, 3);
  return cachedGlob(p, delims).test(m);
}

/** gobwas QuoteMeta: a backslash before each special character `*?\\[]{}`. */
export function globQuoteMeta(pattern: unknown): string {
  return stringOperand(pattern, 1).replace(/[*?[\]{}\\]/g, "\\$&");
}

export const globBuiltins = {
  "glob.match": globMatch,
  "glob.quote_meta": globQuoteMeta,
};
