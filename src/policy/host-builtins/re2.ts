/**
 * RE2 (Go regexp) patterns on a linear-time engine: `re2js`, a port of RE2/J, which
 * parses Go's syntax (Perl flags, `(?i)` over part of an expression, `(?P<name>..)`,
 * `\pL`, `\Q..\E`, POSIX classes) with Go's error texts and matches by automata, so a
 * match costs time linear in the text whatever the pattern (no backtracking: `(a+)+$`
 * against "aaaa…!" is as fast as `a+$`). Never a JavaScript RegExp.
 *
 * Compiled patterns are kept in a bounded least-recently-used cache, invalid ones
 * too (with their error), as OPA caches compiled expressions.
 */
import { RE2JS } from "re2js";
import { builtinError } from "./errors.js";

/** A compiled Go regexp: the pattern, its capture groups' names by index, and the engine's matcher. */
export type Re2 = RE2JS;

/**
 * Distinct patterns kept compiled; the least recently used is dropped first. Each keeps a
 * lazily built DFA (re2js bounds it at 8 MB of states), so the bound is memory too; OPA keeps 100.
 */
export const RE2_CACHE_MAX = 128;

type Compiled = { readonly re: Re2 } | { readonly error: string };

const cache = new Map<string, Compiled>();

function compileUncached(pattern: string): Compiled {
  try {
    return { re: RE2JS.compile(pattern) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // re2js words syntax errors as Go does ("error parsing regexp: ..."); anything else gets Go's prefix.
    return { error: message.startsWith("error parsing regexp: ") ? message : `error parsing regexp: ${message}` };
  }
}

function lookup(pattern: string): Compiled {
  let c = cache.get(pattern);
  if (c !== undefined) {
    // Most recently used last: Map keeps insertion order.
    cache.delete(pattern);
    cache.set(pattern, c);
    return c;
  }
  c = compileUncached(pattern);
  if (cache.size >= RE2_CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, c);
  return c;
}

/** Compiles a Go regexp; throws a builtin error with Go's "error parsing regexp" text. */
export function compileRe2(pattern: string): Re2 {
  const c = lookup(pattern);
  if ("error" in c) throw builtinError(c.error);
  return c.re;
}

/** Whether `pattern` is a valid Go regexp. */
export function isValidRe2(pattern: string): boolean {
  return !("error" in lookup(pattern));
}
