/**
 * Names declared by a plain `some x` that the declaring body mentions only inside
 * nested comprehension or `every` bodies. OPA removes `some x` from the body
 * before its safety check, so such a variable is no variable of that body: each
 * closure that mentions it binds it itself (as it would a free variable) instead of
 * capturing it from a body that never binds it.
 */
import type { Body, Expr, Term } from "./ast.js";
import { forEachVar } from "./walk.js";

/** `some`-declared names of `body` mentioned by neither its expressions (closures excluded) nor `extra` (rule head terms). */
export function closureOnlySomeNames(body: Body, extra: readonly Term[]): Set<string> {
  const declared = new Set<string>();
  const direct = new Set<string>();
  const add = (t: Term): void => forEachVar(t, (n) => direct.add(n));
  for (const t of extra) add(t);
  const visit = (e: Expr): void => {
    for (const w of e.with) add(w.value);
    switch (e.type) {
      case "termexpr":
        add(e.term);
        return;
      case "callexpr":
        e.args.forEach(add);
        return;
      case "some":
        for (const v of e.vars) declared.add(v.name);
        return;
      case "somein":
        if (e.key !== null) add(e.key);
        add(e.value);
        add(e.domain);
        return;
      case "every":
        add(e.domain);
        return;
      case "not":
        // A negated body is part of this body, not a closure.
        e.body.forEach(visit);
        return;
    }
  };
  body.forEach(visit);
  const out = new Set<string>();
  for (const d of declared) if (d !== "_" && !direct.has(d)) out.add(d);
  return out;
}
