/**
 * glob.match with the semantics of github.com/gobwas/glob, which OPA uses:
 * `*` any run of non-delimiter characters, `**` any run, `?` one non-delimiter
 * character, `[abc]` `[a-z]` `[!a-z]` classes, `{a,b}` alternatives (nested),
 * `\` escapes (the syntax and its errors: glob-syntax.ts). Delimiters: null -> none,
 * [] -> ["."] (OPA's defaults).
 * A pattern is compiled once into an anchored RE2 expression (re2js: linear-time
 * matching, so `*a*a*a*…b` cannot backtrack) and cached.
 */
import { RE2JS } from "re2js";
import { builtinError, operandError, operandTypeError, typeName } from "./errors.js";
import { GlobSyntaxError, parseGlob, type GlobNode } from "./glob-syntax.js";
import { stringOperand } from "./operands.js";

const reEscape = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

const cp = (c: number): string => `\\x{${c.toString(16)}}`;

/** The RE2 expression a gobwas tree matches (anchored by the caller). */
function toRegex(node: GlobNode, notSep: string): string {
  switch (node.kind) {
    case "pattern":
      return node.children.map((c) => toRegex(c, notSep)).join("");
    case "anyOf":
      return `(?:${node.children.map((c) => toRegex(c, notSep)).join("|")})`;
    case "text":
      return reEscape(node.text);
    case "any":
      return `${notSep}*`;
    case "super":
      return "[\\s\\S]*";
    case "single":
      return notSep;
    case "list":
      return `[${node.not ? "^" : ""}${[...node.chars].map((c) => cp(c.codePointAt(0)!)).join("")}]`;
    case "range":
      return `[${node.not ? "^" : ""}${cp(node.lo)}-${cp(node.hi)}]`;
  }
}

function compileGlob(pattern: string, delimiters: readonly string[]): RE2JS {
  const notSep = delimiters.length === 0 ? "[\\s\\S]" : `[^${delimiters.map((d) => cp(d.codePointAt(0)!)).join("")}]`;
  let tree: GlobNode;
  try {
    tree = parseGlob(pattern);
  } catch (e) {
    if (e instanceof GlobSyntaxError) throw builtinError(e.message);
    throw e;
  }
  return RE2JS.compile(`^(?:${toRegex(tree, notSep)})$`);
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
    // OPA's RuneSliceOperand: each element one character.
    delims = delimiters.map((d) => {
      if (typeof d !== "string") throw operandError(2, `must be array of strings but got array containing ${typeName(d)}`);
      if ([...d].length !== 1) throw operandError(2, "must be array of runes but got array containing string");
      return d;
    });
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
