/**
 * Which names a body mentions directly (its own expressions, not nested
 * comprehension or `every` bodies), minus those it declares: these are the free
 * variables the body owns unless an enclosing body mentions them too.
 */
import type { Body, Term } from "./ast.js";

/** Var names used directly in `body` (not in nested comprehension/every bodies), minus those it declares. */
export function directFreeNames(body: Body, extra: readonly Term[]): Set<string> {
  const names = new Set<string>();
  const declared = new Set<string>();
  const add = (t: Term): void => collectDirect(t, names);
  for (const t of extra) add(t);
  for (const e of body) {
    for (const w of e.with) add(w.value);
    switch (e.type) {
      case "termexpr":
        add(e.term);
        break;
      case "callexpr":
        if (e.operator[0] === "assign" && e.operator.length === 1) {
          collectDirect(e.args[0] as Term, declared);
          add(e.args[1] as Term);
        } else e.args.forEach(add);
        break;
      case "some":
        for (const v of e.vars) declared.add(v.name);
        break;
      case "somein":
        if (e.key !== null) collectDirect(e.key, declared);
        collectDirect(e.value, declared);
        add(e.domain);
        break;
      case "every":
        add(e.domain);
        break;
      case "not":
        break;
    }
  }
  for (const d of declared) names.delete(d);
  names.delete("_");
  return names;
}

function collectDirect(t: Term, out: Set<string>): void {
  switch (t.type) {
    case "var":
      out.add(t.name);
      return;
    case "ref":
      collectDirect(t.head, out);
      t.path.forEach((p) => collectDirect(p, out));
      return;
    case "array":
    case "set":
      t.items.forEach((i) => collectDirect(i, out));
      return;
    case "object":
      for (const [k, v] of t.items) {
        collectDirect(k, out);
        collectDirect(v, out);
      }
      return;
    case "call":
      t.args.forEach((a) => collectDirect(a, out));
      return;
    default:
      return;
  }
}
